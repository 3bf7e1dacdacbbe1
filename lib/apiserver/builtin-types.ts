import type { ResourceType } from './resource-type.js';
import { builtInPrinterColumns } from './table/built-in-columns.js';
import type { PrinterColumn } from './table/table.js';

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  generation?: boolean;
  returnsObject?: boolean;
  /** Table columns after Name (kubectl get), as kube-apiserver prints this kind; default Age only. */
  columns?: PrinterColumn[];
  /** A create-only review API (answered, never stored). */
  review?: true;
}

const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const RBAC = 'rbac.authorization.k8s.io';
const NETWORKING = 'networking.k8s.io';
const ADMISSION = 'admissionregistration.k8s.io';
const AUTHZ = 'authorization.k8s.io';
const AUTHN = 'authentication.k8s.io';

const SPECS: BuiltinSpec[] = [
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, AGE],
  },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret' },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    status: true,
    returnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    shortNames: ['sa'],
    returnsObject: true,
  },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', shortNames: ['ep'] },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    returnsObject: true,
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.phase' }, AGE],
  },
  {
    group: '',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    shortNames: ['ev'],
    columns: [
      { name: 'Type', type: 'string', jsonPath: '.type' },
      { name: 'Reason', type: 'string', jsonPath: '.reason' },
      { name: 'Object', type: 'string', jsonPath: '.involvedObject.name' },
      { name: 'Message', type: 'string', jsonPath: '.message' },
      AGE,
    ],
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    shortNames: ['pvc'],
    status: true,
    returnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    status: true,
    returnsObject: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    shortNames: ['rc'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    status: true,
  },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', shortNames: ['ev'] },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    columns: [{ name: 'Holder', type: 'string', jsonPath: '.spec.holderIdentity' }, AGE],
  },
  { group: RBAC, version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  {
    group: RBAC,
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  { group: RBAC, version: 'v1', resource: 'roles', kind: 'Role' },
  { group: RBAC, version: 'v1', resource: 'rolebindings', kind: 'RoleBinding' },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    shortNames: ['sts'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    shortNames: ['ds'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    scale: true,
    generation: true,
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    shortNames: ['cj'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
    shortNames: ['hpa'],
    categories: ['all'],
    status: true,
  },
  {
    group: NETWORKING,
    version: 'v1',
    resource: 'ingresses',
    kind: 'Ingress',
    shortNames: ['ing'],
    status: true,
    generation: true,
  },
  {
    group: NETWORKING,
    version: 'v1',
    resource: 'ingressclasses',
    kind: 'IngressClass',
    namespaced: false,
    generation: true,
  },
  {
    group: NETWORKING,
    version: 'v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    shortNames: ['netpol'],
    generation: true,
  },
  {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    shortNames: ['pdb'],
    status: true,
    generation: true,
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    returnsObject: true,
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    generation: true,
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    generation: true,
  },
  {
    group: ADMISSION,
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    generation: true,
  },
  {
    group: ADMISSION,
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    generation: true,
  },
  {
    group: AUTHN,
    version: 'v1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
    review: true,
  },
  {
    group: AUTHN,
    version: 'v1',
    resource: 'tokenreviews',
    kind: 'TokenReview',
    namespaced: false,
    review: true,
  },
  {
    group: AUTHZ,
    version: 'v1',
    resource: 'localsubjectaccessreviews',
    kind: 'LocalSubjectAccessReview',
    review: true,
  },
  {
    group: AUTHZ,
    version: 'v1',
    resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    namespaced: false,
    review: true,
  },
  {
    group: AUTHZ,
    version: 'v1',
    resource: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
    namespaced: false,
    review: true,
  },
  {
    group: AUTHZ,
    version: 'v1',
    resource: 'subjectaccessreviews',
    kind: 'SubjectAccessReview',
    namespaced: false,
    review: true,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    status: true,
    generation: true,
  },
];

/** The compiled-in kinds the server serves at start, stored schemaless. */
export function builtinTypes(): ResourceType[] {
  return SPECS.map((s) => {
    // kube-apiserver's printers (pkg/printers/internalversion/printers.go) where written, else the spec's.
    const columns = builtInPrinterColumns({ group: s.group, version: s.version, kind: s.kind }) ?? s.columns;
    const type: ResourceType = {
      group: s.group,
      versions: [columns ? { name: s.version, printerColumns: columns } : { name: s.version }],
      storageVersion: s.version,
      resource: s.resource,
      singular: s.kind.toLowerCase(),
      kind: s.kind,
      listKind: `${s.kind}List`,
      namespaced: s.namespaced ?? true,
      shortNames: s.shortNames ?? [],
      categories: s.categories ?? [],
      statusSubresource: s.status ?? false,
      builtin: true,
      tracksGeneration: s.generation ?? false,
      deleteReturnsObject: s.returnsObject ?? false,
      unconditionalUpdate: true,
    };
    if (s.review === true) type.verbs = ['create'];
    if (s.scale === true) {
      type.scale = {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.spec.selector',
      };
    }
    return type;
  });
}

/** Built-in group order in discovery (core first, then kube-apiserver v1.34's order). */
export const BUILTIN_GROUP_ORDER = [
  '',
  'apps',
  'events.k8s.io',
  AUTHN,
  AUTHZ,
  'autoscaling',
  'batch',
  NETWORKING,
  'policy',
  RBAC,
  'storage.k8s.io',
  ADMISSION,
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
];
