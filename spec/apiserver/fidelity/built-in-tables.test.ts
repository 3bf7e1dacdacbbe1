// `kubectl get -o wide` for built-in kinds shows the columns kube-apiserver's printers serve
// (k8s.io/kubernetes pkg/printers/internalversion/printers.go at v1.34): the server sends the Table, kubectl
// only lays it out. Runs on the embedded server and, under RECONCILEKIT_E2E (make test-real), on
// kube-apiserver with the same expectations. Objects spell out the fields kube would default, so both
// servers hold the same object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

let target: Target;
const ns = uniqueName('tables');
const sc = `${ns}-sc`;
// NodePorts are cluster-wide: random ones, so reruns on a shared real server do not collide.
const nodePort = 30000 + Math.floor(Math.random() * 2700);
const container = { name: 'c', image: 'busybox' };
const labels = { app: 'tables' };
const template = { metadata: { labels }, spec: { containers: [container] } };

const OBJECTS: Record<string, unknown>[] = [
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm' },
    data: { a: '1', b: '2' },
    binaryData: { c: 'AA==' },
  },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, type: 'Opaque', data: { a: 'MQ==' } },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc' },
    spec: {
      type: 'NodePort',
      selector: labels,
      externalIPs: ['192.0.2.10'],
      ports: [
        { name: 'http', port: 80, nodePort, protocol: 'TCP' },
        { name: 'dns', port: 53, nodePort: nodePort + 1, protocol: 'UDP' },
      ],
    },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'deploy' },
    spec: { replicas: 0, selector: { matchLabels: labels }, template },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pod' },
    spec: { containers: [container, { name: 'd', image: 'nginx' }] },
  },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'rc' },
    spec: { replicas: 2, selector: labels, template },
  },
  {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cron' },
    spec: {
      schedule: '*/5 * * * *',
      timeZone: 'Etc/UTC',
      suspend: false,
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container] } } } },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'ing' },
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'] }],
      rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'netpol' },
    spec: { podSelector: { matchLabels: labels }, policyTypes: ['Ingress'] },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'pdb' },
    spec: { maxUnavailable: '50%', selector: { matchLabels: labels } },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'hpa' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deploy' },
      minReplicas: 1,
      maxReplicas: 3,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
    },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'slice' },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }],
    ports: [
      { name: 'http', port: 80, protocol: 'TCP' },
      { name: 'x', port: 81, protocol: 'TCP' },
    ],
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: sc },
    provisioner: 'example.com/none',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  },
];

function manifest(): string {
  return OBJECTS.map((o) => JSON.stringify(o)).join('\n');
}

beforeAll(async () => {
  target = await startTarget({ tls: { clientCertificates: true } });
  const created = await kubectl(target, ['create', 'namespace', ns]);
  expect(created.code, created.stderr).toBe(0);
  const applied = await kubectl(target, ['apply', '-n', ns, '-f', '-'], manifest(), 60_000);
  expect(applied.code, applied.stderr).toBe(0);
}, 90_000);

afterAll(async () => {
  await kubectl(
    target,
    ['delete', '-n', ns, '-f', '-', '--ignore-not-found', '--wait=false'],
    manifest(),
    60_000,
  );
  await kubectl(target, ['delete', 'namespace', ns, '--wait=false']);
  await target.close();
}, 90_000);

/** The cells of a one-row `kubectl get -o wide`, by header: kubectl aligns each cell under its header. */
async function table(resource: string, name: string): Promise<Record<string, string>> {
  const r = await kubectl(target, ['get', resource, name, '-n', ns, '-o', 'wide']);
  expect(r.code, r.stderr).toBe(0);
  const [header = '', row = ''] = r.stdout.split('\n');
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ name: m[0], at: m.index }));
  const cells: Record<string, string> = {};
  starts.forEach((h, i) => {
    cells[h.name] = row.slice(h.at, starts[i + 1]?.at ?? row.length).trim();
  });
  return cells;
}

describe('kubectl get -o wide: the built-in printers’ columns', () => {
  it.each([
    ['configmap', 'cm', { NAME: 'cm', DATA: '3' }],
    ['secret', 'sec', { NAME: 'sec', TYPE: 'Opaque', DATA: '1' }],
    [
      'deployment',
      'deploy',
      {
        READY: '0/0',
        'UP-TO-DATE': '0',
        AVAILABLE: '0',
        CONTAINERS: 'c',
        IMAGES: 'busybox',
        SELECTOR: 'app=tables',
      },
    ],
    [
      'pod',
      'pod',
      {
        READY: '0/2',
        STATUS: 'Pending',
        RESTARTS: '0',
        IP: '<none>',
        NODE: '<none>',
        'READINESS GATES': '<none>',
      },
    ],
    [
      'replicationcontroller',
      'rc',
      { DESIRED: '2', CURRENT: '0', READY: '0', CONTAINERS: 'c', IMAGES: 'busybox', SELECTOR: 'app=tables' },
    ],
    [
      'cronjob',
      'cron',
      {
        SCHEDULE: '*/5 * * * *',
        TIMEZONE: 'Etc/UTC',
        SUSPEND: 'False',
        ACTIVE: '0',
        'LAST SCHEDULE': '<none>',
        SELECTOR: '<none>',
      },
    ],
    ['ingress', 'ing', { CLASS: 'nginx', HOSTS: 'a.example.com,b.example.com', PORTS: '80, 443' }],
    ['networkpolicy', 'netpol', { 'POD-SELECTOR': 'app=tables' }],
    ['pdb', 'pdb', { 'MIN AVAILABLE': 'N/A', 'MAX UNAVAILABLE': '50%', 'ALLOWED DISRUPTIONS': '0' }],
    [
      'hpa',
      'hpa',
      {
        REFERENCE: 'Deployment/deploy',
        TARGETS: 'cpu: <unknown>/50%',
        MINPODS: '1',
        MAXPODS: '3',
        REPLICAS: '0',
      },
    ],
    ['endpointslice', 'slice', { ADDRESSTYPE: 'IPv4', PORTS: '80,81', ENDPOINTS: '10.0.0.1,10.0.0.2' }],
    [
      'storageclass',
      sc,
      {
        PROVISIONER: 'example.com/none',
        RECLAIMPOLICY: 'Delete',
        VOLUMEBINDINGMODE: 'Immediate',
        ALLOWVOLUMEEXPANSION: 'true',
      },
    ],
  ])('%s', async (resource, name, expected) => {
    const cells = await table(resource, name);
    expect(cells).toMatchObject(expected);
    expect(cells.AGE).toMatch(/^\d+s$|^\d+m/);
  });

  it('service: TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), SELECTOR', async () => {
    const cells = await table('service', 'svc');
    expect(cells).toMatchObject({
      TYPE: 'NodePort',
      'EXTERNAL-IP': '192.0.2.10',
      'PORT(S)': `80:${nodePort}/TCP,53:${nodePort + 1}/UDP`,
      SELECTOR: 'app=tables',
    });
    // Each server allocates from its own service range.
    expect(cells['CLUSTER-IP']).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
});
