import type { KindRef } from '../patch/kind-ref.js';
import { isJsonObject } from '../patch/json-value.js';
import { humanDuration } from './human-duration.js';
import type { PrinterColumn } from './table.js';

type Obj = Record<string, unknown>;

function get(obj: unknown, path: string): unknown {
  let current = obj;
  for (const part of path.split('.'))
    current = isJsonObject(current) && Object.hasOwn(current, part) ? current[part] : undefined;
  return current;
}

function num(obj: unknown, path: string): number {
  const value = get(obj, path);
  return typeof value === 'number' ? value : 0;
}

function str(obj: unknown, path: string, fallback = '<none>'): string {
  const value = get(obj, path);
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function list(obj: unknown, path: string): unknown[] {
  const value = get(obj, path);
  return Array.isArray(value) ? value : [];
}

function count(obj: unknown, ...paths: string[]): number {
  return paths.reduce((sum, path) => {
    const value = get(obj, path);
    return sum + (isJsonObject(value) ? Object.keys(value).length : 0);
  }, 0);
}

function col(
  name: string,
  type: string,
  cell: (obj: Obj, now: Date) => unknown,
  priority = 0,
): PrinterColumn {
  return { name, type, jsonPath: '', priority, cell };
}

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'string',
  jsonPath: '',
  cell: (obj, now) => {
    const created = Date.parse(str(obj, 'metadata.creationTimestamp', ''));
    return Number.isNaN(created) ? '<unknown>' : humanDuration(now.getTime() - created);
  },
};

const ratio = (ready: string, total: string) => (obj: Obj) => `${num(obj, ready)}/${num(obj, total)}`;

function podStatus(obj: Obj): string {
  if (get(obj, 'metadata.deletionTimestamp') !== undefined) return 'Terminating';
  for (const status of list(obj, 'status.containerStatuses')) {
    const reason = get(status, 'state.waiting.reason') ?? get(status, 'state.terminated.reason');
    if (typeof reason === 'string' && reason !== '') return reason;
  }
  return str(obj, 'status.reason', '') || str(obj, 'status.phase', 'Pending');
}

function servicePorts(obj: Obj): string {
  const ports = list(obj, 'spec.ports').map((p) => {
    const nodePort = num(p, 'nodePort');
    return `${num(p, 'port')}${nodePort ? `:${nodePort}` : ''}/${str(p, 'protocol', 'TCP')}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

function externalIp(obj: Obj): string {
  const ips = list(obj, 'spec.externalIPs').filter((ip): ip is string => typeof ip === 'string');
  const ingress = list(obj, 'status.loadBalancer.ingress').map(
    (i) => str(i, 'ip', '') || str(i, 'hostname', ''),
  );
  const all = [...ingress, ...ips].filter((ip) => ip !== '');
  if (all.length > 0) return all.join(',');
  return str(obj, 'spec.type', 'ClusterIP') === 'LoadBalancer' ? '<pending>' : '<none>';
}

function jobDuration(obj: Obj, now: Date): string {
  const start = Date.parse(str(obj, 'status.startTime', ''));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(obj, 'status.completionTime', ''));
  return humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
}

function images(obj: Obj, field: 'name' | 'image', path = 'spec.template.spec.containers'): string {
  return list(obj, path)
    .map((c) => str(c, field, ''))
    .join(',');
}

/** labels.FormatLabels: `k=v` sorted by key, `<none>` when empty. */
function formatLabels(value: unknown): string {
  if (!isJsonObject(value)) return '<none>';
  const pairs = Object.keys(value)
    .sort()
    .map((k) => `${k}=${String(value[k])}`);
  return pairs.length > 0 ? pairs.join(',') : '<none>';
}

/** metav1.FormatLabelSelector: requirements sorted by key, `<none>` for a missing or empty selector. */
function formatLabelSelector(selector: unknown): string {
  if (!isJsonObject(selector)) return '<none>';
  const requirements: [string, string][] = [];
  const labels = get(selector, 'matchLabels');
  if (isJsonObject(labels))
    for (const [k, v] of Object.entries(labels)) requirements.push([k, `${k}=${String(v)}`]);
  for (const e of list(selector, 'matchExpressions')) {
    const key = str(e, 'key', '');
    const values = list(e, 'values').map(String).sort().join(',');
    const operator = str(e, 'operator', '');
    const text =
      operator === 'In'
        ? `${key} in (${values})`
        : operator === 'NotIn'
          ? `${key} notin (${values})`
          : operator === 'Exists'
            ? key
            : operator === 'DoesNotExist'
              ? `!${key}`
              : '<error>';
    requirements.push([key, text]);
  }
  requirements.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const text = requirements.map(([, t]) => t).join(',');
  return text === '' ? '<none>' : text;
}

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
function accessModes(value: unknown): string {
  const modes = Array.isArray(value) ? value : [];
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([mode]) => modes.includes(mode))
    .map(([, s]) => s)
    .join(',');
}

function storageClassOf(obj: Obj): string {
  const annotation = get(obj, 'metadata.annotations');
  const beta = isJsonObject(annotation) ? annotation['volume.beta.kubernetes.io/storage-class'] : undefined;
  return typeof beta === 'string' ? beta : str(obj, 'spec.storageClassName', '');
}

function terminatingOr(obj: Obj, phase: string): string {
  return get(obj, 'metadata.deletionTimestamp') !== undefined ? 'Terminating' : phase;
}

function pvcCapacity(obj: Obj): string {
  if (str(obj, 'spec.volumeName', '') === '') return '';
  const value = get(obj, 'status.capacity.storage');
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '0';
}

/** A `<x>/<y>` list of up to `max` items, then ` + N more...` (listWithMoreString). */
function listWithMore(items: string[], max: number, empty = '<unset>'): string {
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === '' ? empty : shown;
}

function nodeStatus(obj: Obj): string {
  const ready = list(obj, 'status.conditions').find((c) => get(c, 'type') === 'Ready');
  const status = [ready === undefined ? 'Unknown' : get(ready, 'status') === 'True' ? 'Ready' : 'NotReady'];
  if (get(obj, 'spec.unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeRoles(obj: Obj): string {
  const labels = get(obj, 'metadata.labels');
  const roles = new Set<string>();
  if (isJsonObject(labels)) {
    for (const [k, v] of Object.entries(labels)) {
      if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length)
        roles.add(k.slice('node-role.kubernetes.io/'.length));
      else if (k === 'kubernetes.io/role' && typeof v === 'string' && v !== '') roles.add(v);
    }
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(obj: Obj, type: string): string {
  const address = list(obj, 'status.addresses').find((a) => get(a, 'type') === type);
  return address === undefined ? '<none>' : str(address, 'address', '');
}

function orUnknown(obj: Obj, path: string): string {
  return str(obj, path, '<unknown>');
}

function boolPointer(value: unknown): string {
  return value === true ? 'True' : value === false ? 'False' : '<unset>';
}

function ingressHosts(obj: Obj): string {
  const rules = list(obj, 'spec.rules');
  const hosts = rules
    .slice(0, 3)
    .map((r) => str(r, 'host', ''))
    .filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  return rules.length > 3 ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

function ingressAddress(obj: Obj): string {
  const found = new Set<string>();
  for (const i of list(obj, 'status.loadBalancer.ingress')) {
    const address = str(i, 'ip', '') || str(i, 'hostname', '');
    if (address !== '') found.add(address);
  }
  return [...found].sort().join(',');
}

function ingressClassParameters(obj: Obj): string {
  const parameters = get(obj, 'spec.parameters');
  if (!isJsonObject(parameters)) return '<none>';
  const group = get(parameters, 'apiGroup');
  const kind = str(parameters, 'kind', '');
  return `${typeof group === 'string' ? `${kind}.${group}` : kind}/${str(parameters, 'name', '')}`;
}

function intOrString(obj: Obj, path: string): string {
  const value = get(obj, path);
  return typeof value === 'number' || typeof value === 'string' ? String(value) : 'N/A';
}

function percent(value: unknown): string | undefined {
  return typeof value === 'number' ? `${value}%` : undefined;
}

/** formatHPAMetrics: `<name>: <current>/<target>` per metric, two shown, then ` + N more...`. */
function hpaTargets(obj: Obj): string {
  const specs = list(obj, 'spec.metrics');
  if (specs.length === 0) return '<none>';
  const statuses = list(obj, 'status.currentMetrics');
  const value = (v: unknown): string | undefined =>
    typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  const items = specs.map((spec, i) => {
    const status = statuses[i];
    const type = str(spec, 'type', '');
    const field =
      type === 'Resource'
        ? 'resource'
        : type === 'ContainerResource'
          ? 'containerResource'
          : type === 'Pods'
            ? 'pods'
            : type === 'Object'
              ? 'object'
              : type === 'External'
                ? 'external'
                : undefined;
    if (field === undefined) return '<unknown type>';
    const target = get(spec, `${field}.target`);
    const current = get(status, `${field}.current`);
    const average = value(get(target, 'averageValue'));
    if (field === 'resource' || field === 'containerResource') {
      const name = str(spec, `${field}.name`, '');
      if (average !== undefined)
        return `${name}: ${value(get(current, 'averageValue')) ?? '<unknown>'}/${average}`;
      const now = percent(get(current, 'averageUtilization')) ?? '<unknown>';
      return `${name}: ${now}/${percent(get(target, 'averageUtilization')) ?? '<auto>'}`;
    }
    if (field === 'pods') return `${value(get(current, 'averageValue')) ?? '<unknown>'}/${average ?? ''}`;
    if (average !== undefined)
      return `${value(get(current, 'averageValue')) ?? '<unknown>'}/${average} (avg)`;
    return `${value(get(current, 'value')) ?? '<unknown>'}/${value(get(target, 'value')) ?? ''}`;
  });
  return items.length > 2
    ? `${items.slice(0, 2).join(', ')} + ${items.length - 2} more...`
    : items.join(', ');
}

function endpointSlicePorts(obj: Obj): string {
  return listWithMore(
    list(obj, 'ports').map((p) => {
      const port = get(p, 'port');
      if (typeof port === 'number') return String(port);
      return str(p, 'name', '*');
    }),
    3,
  );
}

function endpointSliceAddresses(obj: Obj): string {
  return listWithMore(
    list(obj, 'endpoints').flatMap((e) => list(e, 'addresses').map(String)),
    3,
  );
}

function readinessGates(obj: Obj): string {
  const gates = list(obj, 'spec.readinessGates');
  if (gates.length === 0) return '<none>';
  const conditions = list(obj, 'status.conditions');
  const met = gates.filter((g) =>
    conditions.some((c) => get(c, 'type') === get(g, 'conditionType') && get(c, 'status') === 'True'),
  ).length;
  return `${met}/${gates.length}`;
}

const WIDE_WORKLOAD = [
  col('Containers', 'string', (o) => images(o, 'name'), 1),
  col('Images', 'string', (o) => images(o, 'image'), 1),
  col('Selector', 'string', (o) => formatLabelSelector(get(o, 'spec.selector')), 1),
];

const WEBHOOKS = [col('Webhooks', 'integer', (o) => list(o, 'webhooks').length), AGE];

/** kube-apiserver's table columns (after Name) for built-in kinds, by "<group>/<Kind>". */
const COLUMNS: Record<string, PrinterColumn[]> = {
  '/ConfigMap': [col('Data', 'string', (o) => count(o, 'data', 'binaryData')), AGE],
  '/Secret': [
    col('Type', 'string', (o) => str(o, 'type', '')),
    col('Data', 'string', (o) => count(o, 'data')),
    AGE,
  ],
  '/Namespace': [col('Status', 'string', (o) => str(o, 'status.phase', '')), AGE],
  '/ServiceAccount': [col('Secrets', 'string', (o) => list(o, 'secrets').length), AGE],
  '/Service': [
    col('Type', 'string', (o) => str(o, 'spec.type', 'ClusterIP')),
    col('Cluster-IP', 'string', (o) => str(o, 'spec.clusterIP')),
    col('External-IP', 'string', externalIp),
    col('Port(s)', 'string', servicePorts),
    AGE,
    col('Selector', 'string', (o) => formatLabels(get(o, 'spec.selector')), 1),
  ],
  '/Pod': [
    col('Ready', 'string', (o) => {
      const statuses = list(o, 'status.containerStatuses');
      return `${statuses.filter((s) => get(s, 'ready') === true).length}/${list(o, 'spec.containers').length}`;
    }),
    col('Status', 'string', podStatus),
    col('Restarts', 'string', (o) =>
      String(list(o, 'status.containerStatuses').reduce<number>((n, s) => n + num(s, 'restartCount'), 0)),
    ),
    AGE,
    col('IP', 'string', (o) => str(o, 'status.podIP'), 1),
    col('Node', 'string', (o) => str(o, 'spec.nodeName'), 1),
    col('Nominated Node', 'string', (o) => str(o, 'status.nominatedNodeName'), 1),
    col('Readiness Gates', 'string', readinessGates, 1),
  ],
  '/PersistentVolumeClaim': [
    col('Status', 'string', (o) => terminatingOr(o, str(o, 'status.phase', ''))),
    col('Volume', 'string', (o) => str(o, 'spec.volumeName', '')),
    col('Capacity', 'string', pvcCapacity),
    col('Access Modes', 'string', (o) =>
      str(o, 'spec.volumeName', '') === '' ? '' : accessModes(get(o, 'status.accessModes')),
    ),
    col('StorageClass', 'string', storageClassOf),
    col('VolumeAttributesClass', 'string', (o) => str(o, 'spec.volumeAttributesClassName', '<unset>')),
    AGE,
    col('VolumeMode', 'string', (o) => str(o, 'spec.volumeMode', '<unset>'), 1),
  ],
  '/PersistentVolume': [
    col('Capacity', 'string', (o) => {
      const value = get(o, 'spec.capacity.storage');
      return typeof value === 'string' || typeof value === 'number' ? String(value) : '0';
    }),
    col('Access Modes', 'string', (o) => accessModes(get(o, 'spec.accessModes'))),
    col('Reclaim Policy', 'string', (o) => str(o, 'spec.persistentVolumeReclaimPolicy', '')),
    col('Status', 'string', (o) => terminatingOr(o, str(o, 'status.phase', ''))),
    col('Claim', 'string', (o) => {
      const ref = get(o, 'spec.claimRef');
      return isJsonObject(ref) ? `${str(ref, 'namespace', '')}/${str(ref, 'name', '')}` : '';
    }),
    col('StorageClass', 'string', storageClassOf),
    col('VolumeAttributesClass', 'string', (o) => str(o, 'spec.volumeAttributesClassName', '<unset>')),
    col('Reason', 'string', (o) => str(o, 'status.reason', '')),
    AGE,
    col('VolumeMode', 'string', (o) => str(o, 'spec.volumeMode', '<unset>'), 1),
  ],
  '/ReplicationController': [
    col('Desired', 'integer', (o) => num(o, 'spec.replicas')),
    col('Current', 'integer', (o) => num(o, 'status.replicas')),
    col('Ready', 'integer', (o) => num(o, 'status.readyReplicas')),
    AGE,
    col('Containers', 'string', (o) => images(o, 'name'), 1),
    col('Images', 'string', (o) => images(o, 'image'), 1),
    col('Selector', 'string', (o) => formatLabels(get(o, 'spec.selector')), 1),
  ],
  '/Node': [
    col('Status', 'string', nodeStatus),
    col('Roles', 'string', nodeRoles),
    AGE,
    col('Version', 'string', (o) => str(o, 'status.nodeInfo.kubeletVersion', '')),
    col('Internal-IP', 'string', (o) => nodeAddress(o, 'InternalIP'), 1),
    col('External-IP', 'string', (o) => nodeAddress(o, 'ExternalIP'), 1),
    col('OS-Image', 'string', (o) => orUnknown(o, 'status.nodeInfo.osImage'), 1),
    col('Kernel-Version', 'string', (o) => orUnknown(o, 'status.nodeInfo.kernelVersion'), 1),
    col('Container-Runtime', 'string', (o) => orUnknown(o, 'status.nodeInfo.containerRuntimeVersion'), 1),
  ],
  'apps/Deployment': [
    col('Ready', 'string', ratio('status.readyReplicas', 'spec.replicas')),
    col('Up-to-date', 'string', (o) => num(o, 'status.updatedReplicas')),
    col('Available', 'string', (o) => num(o, 'status.availableReplicas')),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  'apps/StatefulSet': [
    col('Ready', 'string', ratio('status.readyReplicas', 'spec.replicas')),
    AGE,
    ...WIDE_WORKLOAD.slice(0, 2),
  ],
  'apps/ReplicaSet': [
    col('Desired', 'integer', (o) => num(o, 'spec.replicas')),
    col('Current', 'integer', (o) => num(o, 'status.replicas')),
    col('Ready', 'integer', (o) => num(o, 'status.readyReplicas')),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  'apps/DaemonSet': [
    col('Desired', 'integer', (o) => num(o, 'status.desiredNumberScheduled')),
    col('Current', 'integer', (o) => num(o, 'status.currentNumberScheduled')),
    col('Ready', 'integer', (o) => num(o, 'status.numberReady')),
    col('Up-to-date', 'integer', (o) => num(o, 'status.updatedNumberScheduled')),
    col('Available', 'integer', (o) => num(o, 'status.numberAvailable')),
    AGE,
  ],
  'batch/Job': [
    col('Completions', 'string', (o) => {
      const completions = get(o, 'spec.completions');
      return `${num(o, 'status.succeeded')}/${typeof completions === 'number' ? completions : 1}`;
    }),
    col('Duration', 'string', jobDuration),
    AGE,
  ],
  'batch/CronJob': [
    col('Schedule', 'string', (o) => str(o, 'spec.schedule', '')),
    col('Timezone', 'string', (o) => str(o, 'spec.timeZone')),
    col('Suspend', 'boolean', (o) => boolPointer(get(o, 'spec.suspend'))),
    col('Active', 'integer', (o) => list(o, 'status.active').length),
    col('Last Schedule', 'string', (o, now) => {
      const last = Date.parse(str(o, 'status.lastScheduleTime', ''));
      return Number.isNaN(last) ? '<none>' : humanDuration(now.getTime() - last);
    }),
    AGE,
    col(
      'Containers',
      'string',
      (o) => images(o, 'name', 'spec.jobTemplate.spec.template.spec.containers'),
      1,
    ),
    col('Images', 'string', (o) => images(o, 'image', 'spec.jobTemplate.spec.template.spec.containers'), 1),
    col('Selector', 'string', (o) => formatLabelSelector(get(o, 'spec.jobTemplate.spec.selector')), 1),
  ],
  'autoscaling/HorizontalPodAutoscaler': [
    col(
      'Reference',
      'string',
      (o) => `${str(o, 'spec.scaleTargetRef.kind', '')}/${str(o, 'spec.scaleTargetRef.name', '')}`,
    ),
    col('Targets', 'string', hpaTargets),
    col('MinPods', 'string', (o) => {
      const min = get(o, 'spec.minReplicas');
      return typeof min === 'number' ? String(min) : '<unset>';
    }),
    col('MaxPods', 'string', (o) => num(o, 'spec.maxReplicas')),
    col('Replicas', 'string', (o) => num(o, 'status.currentReplicas')),
    AGE,
  ],
  'networking.k8s.io/Ingress': [
    col('Class', 'string', (o) => str(o, 'spec.ingressClassName')),
    col('Hosts', 'string', ingressHosts),
    col('Address', 'string', ingressAddress),
    col('Ports', 'string', (o) => (list(o, 'spec.tls').length > 0 ? '80, 443' : '80')),
    AGE,
  ],
  'networking.k8s.io/IngressClass': [
    col('Controller', 'string', (o) => str(o, 'spec.controller', '')),
    col('Parameters', 'string', ingressClassParameters),
    AGE,
  ],
  'networking.k8s.io/NetworkPolicy': [
    col('Pod-Selector', 'string', (o) => formatLabelSelector(get(o, 'spec.podSelector'))),
    AGE,
  ],
  'policy/PodDisruptionBudget': [
    col('Min Available', 'string', (o) => intOrString(o, 'spec.minAvailable')),
    col('Max Unavailable', 'string', (o) => intOrString(o, 'spec.maxUnavailable')),
    col('Allowed Disruptions', 'integer', (o) => num(o, 'status.disruptionsAllowed')),
    AGE,
  ],
  'storage.k8s.io/StorageClass': [
    col('Provisioner', 'string', (o) => str(o, 'provisioner', '')),
    col('ReclaimPolicy', 'string', (o) => str(o, 'reclaimPolicy', 'Delete')),
    col('VolumeBindingMode', 'string', (o) => str(o, 'volumeBindingMode', 'Immediate')),
    col('AllowVolumeExpansion', 'string', (o) => get(o, 'allowVolumeExpansion') === true),
    AGE,
  ],
  'scheduling.k8s.io/PriorityClass': [
    col('Value', 'integer', (o) => num(o, 'value')),
    col('Global-Default', 'boolean', (o) => get(o, 'globalDefault') === true),
    AGE,
    col('PreemptionPolicy', 'string', (o) => str(o, 'preemptionPolicy', '')),
  ],
  'discovery.k8s.io/EndpointSlice': [
    col('AddressType', 'string', (o) => str(o, 'addressType', '')),
    col('Ports', 'string', endpointSlicePorts),
    col('Endpoints', 'string', endpointSliceAddresses),
    AGE,
  ],
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': WEBHOOKS,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': WEBHOOKS,
  'coordination.k8s.io/Lease': [col('Holder', 'string', (o) => str(o, 'spec.holderIdentity', '')), AGE],
  'apiextensions.k8s.io/CustomResourceDefinition': [
    col('Created At', 'date', (o) => str(o, 'metadata.creationTimestamp', '')),
  ],
};

/**
 * The columns kube-apiserver's built-in table printers serve for common kinds (after Name), with
 * computed cells such as Ready `1/2`; undefined for other kinds (renderTable then serves Age only).
 * Pass the result as renderTable's `columns` for built-in kinds.
 */
export function builtInPrinterColumns(kind: KindRef): PrinterColumn[] | undefined {
  const key = `${kind.group}/${kind.kind}`;
  return Object.hasOwn(COLUMNS, key) ? COLUMNS[key] : undefined;
}
