// deploy/: the CRD, the operator's namespace, least-privilege RBAC and the Deployment of a scaffolded
// project. They agree with each other and with the code: one name for namespace, ServiceAccount, Lease and
// image; the RBAC grants exactly the verbs the operator's requests need; probes hit HEALTH_ADDRESS's port.
import type { ProjectNames } from './project-names.js';

/** Port of /healthz, /readyz and /metrics in the pod. */
export const HEALTH_PORT = 8080;

export function crdFile(n: ProjectNames): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${n.plural}.${n.group}
spec:
  group: ${n.group}
  scope: Namespaced
  names:
    kind: ${n.kind}
    listKind: ${n.kind}List
    plural: ${n.plural}
    singular: ${n.singular}
  versions:
    - name: ${n.version}
      served: true
      storage: true
      subresources:
        status: {}
      additionalPrinterColumns:
        - name: Message
          type: string
          jsonPath: .spec.message
        - name: Ready
          type: string
          jsonPath: .status.conditions[?(@.type=="Ready")].status
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [message]
              properties:
                message:
                  type: string
                  maxLength: 1024
                  description: Written into the ConfigMap <name>-${n.singular}.
            status:
              type: object
              properties:
                observedGeneration:
                  type: integer
                conditions:
                  type: array
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: { type: string }
                      status: { type: string }
                      reason: { type: string }
                      message: { type: string }
                      lastTransitionTime: { type: string, format: date-time }
                      observedGeneration: { type: integer }
`;
}

export function namespaceFile(n: ProjectNames): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${n.name}
`;
}

export function rbacFile(n: ProjectNames, frontEnd: 'framework' | 'controller' = 'framework'): string {
  const configMaps =
    frontEnd === 'controller'
      ? `  # The reconciler: watch the owned ConfigMaps (drift wakes their owner) and read them from that cache,
  # create and update them (Kubernetes' garbage collector deletes them with their owner).
  - apiGroups: ['']
    resources: [configmaps]
    verbs: [list, watch, create, update]`
      : `  # The CRUD resource: read (from an informer cache, started on the first read: list+watch), create,
  # replace and delete the ConfigMap of each ${n.kind}.
  - apiGroups: ['']
    resources: [configmaps]
    verbs: [list, watch, create, update, delete]`;
  return `# Least privilege: only the verbs the operator's requests need.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${n.name}
  namespace: ${n.name}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${n.name}
rules:
  # Watch ${n.kind} objects (list+watch), re-read one (get), add/remove the finalizer (patch).
  - apiGroups: [${n.group}]
    resources: [${n.plural}]
    verbs: [get, list, watch, patch]
  # A failed reconcile sets the Ready condition to False (merge patch on the status subresource).
  - apiGroups: [${n.group}]
    resources: [${n.plural}/status]
    verbs: [patch]
${configMaps}
  # Warning Events on failed reconciles; repeats are aggregated by patching the count.
  - apiGroups: ['']
    resources: [events]
    verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${n.name}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${n.name}
subjects:
  - kind: ServiceAccount
    name: ${n.name}
    namespace: ${n.name}
---
# Leader election: one Lease in the operator's own namespace.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${n.name}-leader-election
  namespace: ${n.name}
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${n.name}-leader-election
  namespace: ${n.name}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${n.name}-leader-election
subjects:
  - kind: ServiceAccount
    name: ${n.name}
    namespace: ${n.name}
`;
}

export function deploymentFile(n: ProjectNames): string {
  return `# Two replicas, one leader (a Lease in this namespace); probes and metrics on the health server.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${n.name}
  namespace: ${n.name}
  labels:
    app.kubernetes.io/name: ${n.name}
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: ${n.name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${n.name}
    spec:
      serviceAccountName: ${n.name}
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: operator
          image: ${n.name}:0.1.0
          env:
            - name: HEALTH_ADDRESS
              value: 0.0.0.0:${HEALTH_PORT}
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: LOG_LEVEL
              value: info
          ports:
            - name: health
              containerPort: ${HEALTH_PORT}
          livenessProbe:
            httpGet:
              path: /healthz
              port: health
            initialDelaySeconds: 5
            periodSeconds: 10
          readinessProbe:
            httpGet:
              path: /readyz
              port: health
            periodSeconds: 5
          resources:
            requests:
              cpu: 50m
              memory: 64Mi
            limits:
              memory: 256Mi
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
      # SIGTERM: stop taking work, finish in-flight reconciles, release the Lease — within 30 s.
      terminationGracePeriodSeconds: 40
`;
}
