// The kinds the fuzzer writes and the values it writes into them: valid objects, near misses that one
// validation rule or another must refuse, and changes expressed once and sent as a PUT, a merge patch, a
// JSON patch, a strategic merge patch or an applied configuration.
import type { SeededRandom } from './random.js';
import type { JsonObject } from './request.js';

/** One change: set `value` at `path`, or remove what is there. */
export interface Change {
  path: readonly string[];
  value?: unknown;
  remove?: boolean;
}

export interface Mutation {
  label: string;
  changes: Change[];
}

export interface FuzzKind {
  /** Resource name, and the key prefix of its objects. */
  readonly plural: string;
  readonly kind: string;
  readonly builtin: boolean;
  /** Served versions (group/version), the first the storage one. */
  readonly apiVersions: readonly string[];
  /** Names objects are created under (a small pool, so requests meet existing objects). */
  readonly names: readonly string[];
  readonly hasStatus: boolean;
  readonly hasScale: boolean;
  /** A valid object. */
  valid(r: SeededRandom, name: string): JsonObject;
  /** An object one or more rules refuse, and which. */
  invalid(r: SeededRandom, name: string): { label: string; object: JsonObject };
  /** A change to the main resource (valid or not). */
  mutation(r: SeededRandom): Mutation;
  /** A change to the status. */
  statusMutation?(r: SeededRandom): Mutation;
  /** What a field manager applies (server-side apply). */
  applied(r: SeededRandom, name: string, manager: string): JsonObject;
}

export const FINALIZER = 'fuzz.reconcilekit.io/hold';
/** Every object carries this label, so lists across namespaces can be limited to one run. */
export const RUN_LABEL = 'fuzz-run';

function meta(r: SeededRandom, name: string): JsonObject {
  const labels: JsonObject = { [RUN_LABEL]: '$NS', app: r.pick(['web', 'db']) };
  if (r.chance(0.4)) labels.tier = r.pick(['front', 'back']);
  const m: JsonObject = { name, labels };
  if (r.chance(0.2)) m.annotations = { 'fuzz.reconcilekit.io/note': r.pick(['x', 'long note', '']) };
  if (r.chance(0.15)) m.finalizers = [FINALIZER];
  return m;
}

function metaMutation(r: SeededRandom): Mutation {
  return r.weighted<Mutation>([
    [
      3,
      {
        label: 'label app',
        changes: [{ path: ['metadata', 'labels', 'app'], value: r.pick(['web', 'db']) }],
      },
    ],
    [
      2,
      {
        label: 'label tier',
        changes: [{ path: ['metadata', 'labels', 'tier'], value: r.pick(['front', 'back']) }],
      },
    ],
    [1, { label: 'drop label tier', changes: [{ path: ['metadata', 'labels', 'tier'], remove: true }] }],
    [1, { label: 'invalid label', changes: [{ path: ['metadata', 'labels', 'bad'], value: 'not valid!' }] }],
    [
      1,
      {
        label: 'annotation',
        changes: [{ path: ['metadata', 'annotations'], value: { 'fuzz.reconcilekit.io/note': 'n' } }],
      },
    ],
    [2, { label: 'add finalizer', changes: [{ path: ['metadata', 'finalizers'], value: [FINALIZER] }] }],
    [2, { label: 'drop finalizers', changes: [{ path: ['metadata', 'finalizers'], remove: true }] }],
    [1, { label: 'unqualified finalizer', changes: [{ path: ['metadata', 'finalizers'], value: ['hold'] }] }],
    [1, { label: 'unknown metadata field', changes: [{ path: ['metadata', 'bogus'], value: 1 }] }],
  ]);
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

export const CONFIG_MAPS: FuzzKind = {
  plural: 'configmaps',
  kind: 'ConfigMap',
  builtin: true,
  apiVersions: ['v1'],
  names: ['a', 'b', 'c'],
  hasStatus: false,
  hasScale: false,
  valid(r, name) {
    const data: JsonObject = {};
    for (const k of r.subset(['k1', 'k2', 'k3'])) data[k] = r.pick(['1', 'two', '']);
    const o: JsonObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(r, name) };
    if (Object.keys(data).length > 0 || r.chance(0.3)) o.data = data;
    if (r.chance(0.1)) o.binaryData = { bin: b64('bytes') };
    return o;
  },
  invalid(r, name) {
    const o = this.valid(r, name);
    return r.weighted([
      [2, { label: 'bad data key', object: { ...o, data: { 'bad key': 'x' } } }],
      [
        1,
        {
          label: 'bad name',
          object: { ...o, metadata: { ...(o.metadata as JsonObject), name: 'Bad_Name' } },
        },
      ],
      [1, { label: 'number value', object: { ...o, data: { k1: 5 } } }],
      [
        1,
        {
          label: 'data and binaryData share a key',
          object: { ...o, data: { k: 'x' }, binaryData: { k: b64('x') } },
        },
      ],
      [1, { label: 'unknown field', object: { ...o, spec: { x: 1 } } }],
    ]);
  },
  mutation(r) {
    const key = r.pick(['k1', 'k2', 'k3']);
    return r.weighted<Mutation>([
      [
        5,
        {
          label: `data.${key}`,
          changes: [{ path: ['data', key], value: r.pick(['1', 'two', 'three', '']) }],
        },
      ],
      [2, { label: `drop data.${key}`, changes: [{ path: ['data', key], remove: true }] }],
      [1, { label: 'bad data key', changes: [{ path: ['data', 'bad key'], value: 'x' }] }],
      [1, { label: 'number value', changes: [{ path: ['data', key], value: 7 }] }],
      [1, { label: 'binaryData', changes: [{ path: ['binaryData', key], value: b64('v') }] }],
      [1, { label: 'bad base64 binaryData', changes: [{ path: ['binaryData', key], value: '!!' }] }],
      [0.3, { label: 'immutable', changes: [{ path: ['immutable'], value: true }] }],
      [1, { label: 'unknown field', changes: [{ path: ['spec'], value: { x: 1 } }] }],
      [4, metaMutation(r)],
    ]);
  },
  applied(r, name, manager) {
    const data: JsonObject = {};
    for (const k of r.subset(['k1', 'k2', 'k3'])) data[k] = `${manager}-${r.pick(['1', '2'])}`;
    const labels: JsonObject = { [RUN_LABEL]: '$NS' };
    if (r.chance(0.5)) labels.app = r.pick(['web', 'db']);
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
  },
};

export const SECRETS: FuzzKind = {
  plural: 'secrets',
  kind: 'Secret',
  builtin: true,
  apiVersions: ['v1'],
  names: ['s1', 's2'],
  hasStatus: false,
  hasScale: false,
  valid(r, name) {
    const o: JsonObject = { apiVersion: 'v1', kind: 'Secret', metadata: meta(r, name) };
    if (r.chance(0.7)) o.data = { user: b64(r.pick(['admin', 'root'])) };
    if (r.chance(0.3)) o.stringData = { password: r.pick(['hunter2', '']) };
    if (r.chance(0.3)) o.type = r.pick(['Opaque', 'example.com/custom']);
    return o;
  },
  invalid(r, name) {
    const o = this.valid(r, name);
    return r.weighted([
      [2, { label: 'bad base64', object: { ...o, data: { user: 'not base64!' } } }],
      [1, { label: 'tls without keys', object: { ...o, type: 'kubernetes.io/tls' } }],
      [1, { label: 'bad data key', object: { ...o, data: { 'a b': b64('x') } } }],
    ]);
  },
  mutation(r) {
    return r.weighted<Mutation>([
      [
        4,
        { label: 'data.user', changes: [{ path: ['data', 'user'], value: b64(r.pick(['x', 'yy', 'zzz'])) }] },
      ],
      [2, { label: 'stringData', changes: [{ path: ['stringData', 'token'], value: r.pick(['t', 'u']) }] }],
      [1, { label: 'bad base64', changes: [{ path: ['data', 'user'], value: 'a!' }] }],
      [1, { label: 'type change', changes: [{ path: ['type'], value: 'example.com/other' }] }],
      [0.3, { label: 'immutable', changes: [{ path: ['immutable'], value: true }] }],
      [3, metaMutation(r)],
    ]);
  },
  applied(r, name, manager) {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, labels: { [RUN_LABEL]: '$NS' } },
      stringData: { [r.pick(['u', 'v'])]: manager },
    };
  },
};

function container(r: SeededRandom, name = 'c'): JsonObject {
  const c: JsonObject = {
    name,
    image: r.pick(['busybox', 'nginx:1.27', 'registry.example/app@sha256:' + 'a'.repeat(64)]),
  };
  if (r.chance(0.3)) c.ports = [{ containerPort: r.pick([80, 8080]) }];
  if (r.chance(0.2)) c.env = [{ name: 'MODE', value: r.pick(['a', 'b']) }];
  if (r.chance(0.15)) c.resources = { limits: { cpu: r.pick(['500m', '1', '0.5']) } };
  return c;
}

export const DEPLOYMENTS: FuzzKind = {
  plural: 'deployments',
  kind: 'Deployment',
  builtin: true,
  apiVersions: ['apps/v1'],
  names: ['d1', 'd2'],
  hasStatus: true,
  hasScale: true,
  valid(r, name) {
    const app = `app-${name}`;
    const spec: JsonObject = {
      selector: { matchLabels: { app } },
      template: { metadata: { labels: { app } }, spec: { containers: [container(r)] } },
    };
    if (r.chance(0.6)) spec.replicas = r.pick([0, 1, 3]);
    if (r.chance(0.2)) spec.strategy = { type: 'Recreate' };
    if (r.chance(0.2)) spec.minReadySeconds = r.pick([0, 5]);
    return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(r, name), spec };
  },
  invalid(r, name) {
    const o = this.valid(r, name);
    const spec = o.spec as JsonObject;
    return r.weighted([
      [2, { label: 'negative replicas', object: { ...o, spec: { ...spec, replicas: -1 } } }],
      [1, { label: 'no selector', object: { ...o, spec: { ...spec, selector: undefined } } }],
      [
        1,
        {
          label: 'selector not matching',
          object: { ...o, spec: { ...spec, selector: { matchLabels: { app: 'other' } } } },
        },
      ],
      [
        1,
        {
          label: 'no containers',
          object: {
            ...o,
            spec: {
              ...spec,
              template: { metadata: { labels: { app: `app-${name}` } }, spec: { containers: [] } },
            },
          },
        },
      ],
      [1, { label: 'replicas as a string', object: { ...o, spec: { ...spec, replicas: '2' } } }],
      [
        1,
        {
          label: 'recreate with rollingUpdate',
          object: { ...o, spec: { ...spec, strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } } },
        },
      ],
    ]);
  },
  mutation(r) {
    return r.weighted<Mutation>([
      [4, { label: 'replicas', changes: [{ path: ['spec', 'replicas'], value: r.pick([0, 1, 2, 5]) }] }],
      [2, { label: 'negative replicas', changes: [{ path: ['spec', 'replicas'], value: -1 }] }],
      [
        3,
        {
          label: 'image',
          changes: [{ path: ['spec', 'template', 'spec', 'containers'], value: [container(r)] }],
        },
      ],
      [
        1,
        {
          label: 'two containers',
          changes: [
            { path: ['spec', 'template', 'spec', 'containers'], value: [container(r), container(r, 'side')] },
          ],
        },
      ],
      [
        1,
        {
          label: 'container without image',
          changes: [{ path: ['spec', 'template', 'spec', 'containers'], value: [{ name: 'c' }] }],
        },
      ],
      [
        1,
        {
          label: 'template label mismatch',
          changes: [{ path: ['spec', 'template', 'metadata', 'labels', 'app'], value: 'other' }],
        },
      ],
      [
        1,
        {
          label: 'template label extra',
          changes: [{ path: ['spec', 'template', 'metadata', 'labels', 'extra'], value: 'x' }],
        },
      ],
      [
        1,
        {
          label: 'selector change',
          changes: [{ path: ['spec', 'selector', 'matchLabels', 'app'], value: 'other' }],
        },
      ],
      [1, { label: 'recreate', changes: [{ path: ['spec', 'strategy'], value: { type: 'Recreate' } }] }],
      [
        1,
        {
          label: 'zero surge and unavailable',
          changes: [
            {
              path: ['spec', 'strategy'],
              value: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
            },
          ],
        },
      ],
      [
        1,
        {
          label: 'minReadySeconds',
          changes: [{ path: ['spec', 'minReadySeconds'], value: r.pick([3, -1]) }],
        },
      ],
      [
        1,
        {
          label: 'revisionHistoryLimit',
          changes: [{ path: ['spec', 'revisionHistoryLimit'], value: r.pick([2, -1]) }],
        },
      ],
      [
        1,
        {
          label: 'progressDeadlineSeconds',
          changes: [{ path: ['spec', 'progressDeadlineSeconds'], value: r.pick([1, 60]) }],
        },
      ],
      [1, { label: 'paused', changes: [{ path: ['spec', 'paused'], value: r.chance(0.5) }] }],
      [1, { label: 'replicas as a string', changes: [{ path: ['spec', 'replicas'], value: 'three' }] }],
      [1, { label: 'unknown field', changes: [{ path: ['spec', 'bogus'], value: true }] }],
      [3, metaMutation(r)],
    ]);
  },
  statusMutation(r) {
    return r.weighted<Mutation>([
      [
        3,
        { label: 'status.replicas', changes: [{ path: ['status', 'replicas'], value: r.pick([0, 2, -1]) }] },
      ],
      [
        2,
        {
          label: 'status.readyReplicas',
          changes: [{ path: ['status', 'readyReplicas'], value: r.pick([1, 4]) }],
        },
      ],
      [
        1,
        {
          label: 'status.observedGeneration',
          changes: [{ path: ['status', 'observedGeneration'], value: r.pick([1, -2]) }],
        },
      ],
      [
        1,
        {
          label: 'status.conditions',
          changes: [
            {
              path: ['status', 'conditions'],
              value: [{ type: 'Available', status: r.pick(['True', 'False']), reason: 'Fuzz' }],
            },
          ],
        },
      ],
    ]);
  },
  applied(r, name, manager) {
    const app = `app-${name}`;
    const spec: JsonObject = {
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: 'c', image: `img-${manager}` }] },
      },
    };
    if (r.chance(0.6)) spec.replicas = r.pick([1, 2]);
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: { [RUN_LABEL]: '$NS' } },
      spec,
    };
  },
};

export const WIDGET_GROUP = 'fuzz.reconcilekit.io';

function ports(r: SeededRandom, allowBad: boolean): JsonObject[] {
  const list: JsonObject[] = [];
  for (const name of r.subset(['http', 'https', 'metrics'])) {
    const p: JsonObject = { name, port: r.pick([80, 443, 9090]) };
    if (r.chance(0.3)) p.protocol = r.pick(['TCP', 'UDP']);
    list.push(p);
  }
  if (allowBad && r.chance(0.3))
    list.push(r.pick<JsonObject>([{ port: 1 }, { name: 'http', port: 8 }, { name: 'big', port: 70000 }]));
  return list;
}

export const WIDGETS: FuzzKind = {
  plural: 'fuzzwidgets',
  kind: 'FuzzWidget',
  builtin: false,
  apiVersions: [`${WIDGET_GROUP}/v1`, `${WIDGET_GROUP}/v2`],
  names: ['w1', 'w2', 'w3'],
  hasStatus: true,
  hasScale: true,
  valid(r, name) {
    const spec: JsonObject = {};
    if (r.chance(0.6)) spec.size = r.pick([0, 5, 40]);
    if (r.chance(0.6)) spec.color = r.pick(['red', 'green', 'blue']);
    if (r.chance(0.4)) spec.ports = ports(r, false);
    if (r.chance(0.3)) spec.tags = r.subset(['a', 'b', 'c']);
    if (r.chance(0.3)) spec.frozen = r.pick(['x', 'y']);
    if (r.chance(0.2)) spec.settings = { mode: r.pick(['fast', 'slow']) };
    return { apiVersion: `${WIDGET_GROUP}/v1`, kind: 'FuzzWidget', metadata: meta(r, name), spec };
  },
  invalid(r, name) {
    const o = this.valid(r, name);
    const spec = o.spec as JsonObject;
    return r.weighted([
      [2, { label: 'size over maximum', object: { ...o, spec: { ...spec, size: 101 } } }],
      [1, { label: 'bad color', object: { ...o, spec: { ...spec, color: 'purple' } } }],
      [2, { label: 'blue over 50 (CEL)', object: { ...o, spec: { ...spec, color: 'blue', size: 60 } } }],
      [1, { label: 'duplicate tags', object: { ...o, spec: { ...spec, tags: ['a', 'a'] } } }],
      [1, { label: 'port without name', object: { ...o, spec: { ...spec, ports: [{ port: 1 }] } } }],
      [
        1,
        {
          label: 'duplicate port names',
          object: {
            ...o,
            spec: {
              ...spec,
              ports: [
                { name: 'p', port: 1 },
                { name: 'p', port: 2 },
              ],
            },
          },
        },
      ],
      [
        2,
        {
          label: 'bad name and schema errors',
          object: {
            ...o,
            metadata: { ...(o.metadata as JsonObject), name: 'Bad_Name' },
            spec: { ...spec, size: -3 },
          },
        },
      ],
      [1, { label: 'size as a string', object: { ...o, spec: { ...spec, size: 'big' } } }],
      [1, { label: 'unknown field', object: { ...o, spec: { ...spec, bogus: 1 } } }],
      [1, { label: 'replicas over size (CEL)', object: { ...o, spec: { ...spec, size: 1, replicas: 3 } } }],
    ]);
  },
  mutation(r) {
    return r.weighted<Mutation>([
      [4, { label: 'size', changes: [{ path: ['spec', 'size'], value: r.pick([0, 3, 45, 60, 101, -1]) }] }],
      [
        3,
        {
          label: 'color',
          changes: [{ path: ['spec', 'color'], value: r.pick(['red', 'green', 'blue', 'purple']) }],
        },
      ],
      [1, { label: 'drop color', changes: [{ path: ['spec', 'color'], remove: true }] }],
      [2, { label: 'replicas', changes: [{ path: ['spec', 'replicas'], value: r.pick([0, 1, 10]) }] }],
      [3, { label: 'ports', changes: [{ path: ['spec', 'ports'], value: ports(r, true) }] }],
      [
        2,
        {
          label: 'tags',
          changes: [{ path: ['spec', 'tags'], value: r.pick([['a'], ['b', 'c'], ['a', 'a'], []]) }],
        },
      ],
      [2, { label: 'frozen', changes: [{ path: ['spec', 'frozen'], value: r.pick(['x', 'y']) }] }],
      [1, { label: 'note', changes: [{ path: ['spec', 'note'], value: r.pick(['short', 'n'.repeat(45)]) }] }],
      [
        1,
        {
          label: 'settings',
          changes: [{ path: ['spec', 'settings', r.pick(['mode', 'level'])], value: r.pick(['fast', 5]) }],
        },
      ],
      [1, { label: 'v2-only field', changes: [{ path: ['spec', 'extra'], value: 'e' }] }],
      [1, { label: 'unknown field', changes: [{ path: ['spec', 'bogus'], value: 'b' }] }],
      [1, { label: 'null size', changes: [{ path: ['spec', 'size'], value: null }] }],
      [
        1,
        { label: 'status through main resource', changes: [{ path: ['status', 'phase'], value: 'Ready' }] },
      ],
      [3, metaMutation(r)],
    ]);
  },
  statusMutation(r) {
    return r.weighted<Mutation>([
      [
        3,
        {
          label: 'status.phase',
          changes: [{ path: ['status', 'phase'], value: r.pick(['Pending', 'Ready', 'Exploded']) }],
        },
      ],
      [
        2,
        { label: 'status.replicas', changes: [{ path: ['status', 'replicas'], value: r.pick([0, 2, -1]) }] },
      ],
      [
        2,
        {
          label: 'status.conditions',
          changes: [
            {
              path: ['status', 'conditions'],
              value: r.pick([
                [{ type: 'Ready', status: 'True' }],
                [{ type: 'Ready', status: 'Maybe' }],
                [
                  { type: 'Ready', status: 'True' },
                  { type: 'Ready', status: 'False' },
                ],
                [{ status: 'True' }],
              ]),
            },
          ],
        },
      ],
      [1, { label: 'spec through status', changes: [{ path: ['spec', 'size'], value: 7 }] }],
    ]);
  },
  applied(r, name, manager) {
    const spec: JsonObject = {};
    if (r.chance(0.6)) spec.size = r.pick([1, 2, 30]);
    if (r.chance(0.4)) spec.color = r.pick(['red', 'green']);
    if (r.chance(0.6)) spec.ports = ports(r, r.chance(0.3));
    if (r.chance(0.3)) spec.tags = [manager];
    return {
      apiVersion: `${WIDGET_GROUP}/v1`,
      kind: 'FuzzWidget',
      metadata: { name, labels: { [RUN_LABEL]: '$NS' } },
      spec,
    };
  },
};

export const KINDS: readonly FuzzKind[] = [CONFIG_MAPS, SECRETS, DEPLOYMENTS, WIDGETS];

/** The collection path of `kind` in the run's namespace, through `apiVersion`. */
export function collectionPath(
  kind: FuzzKind,
  apiVersion = kind.apiVersions[0] ?? 'v1',
  namespace = '$NS',
): string {
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${prefix}/namespaces/${namespace}/${kind.plural}`;
}
