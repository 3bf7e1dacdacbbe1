// kubectl's typed clients (`kubectl create namespace|configmap|secret|serviceaccount`) send request
// bodies as Kubernetes protobuf ("k8s\0" + runtime.Unknown). This decodes those few kinds (and
// DeleteOptions) into JSON; any other protobuf body is answered 415 so the gap is visible.
import { isJsonObject, type JsonObject } from './json.js';
import { unsupportedMediaType } from './status.js';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

type Scalar = 'string' | 'int' | 'count' | 'bool' | 'bytes' | 'time' | 'strings' | 'map' | 'bytesmap';
interface Message {
  [field: number]: [string, Scalar | Message | { repeated: Message }];
}

const TIME: Message = { 1: ['seconds', 'int'], 2: ['nanos', 'int'] };
const OWNER_REFERENCE: Message = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};
const OBJECT_META: Message = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', 'map'],
  12: ['annotations', 'map'],
  13: ['ownerReferences', { repeated: OWNER_REFERENCE }],
  14: ['finalizers', 'strings'],
};
const OBJECT_REFERENCE: Message = {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
};

const LABEL_SELECTOR: Message = {
  1: ['matchLabels', 'map'],
  2: [
    'matchExpressions',
    { repeated: { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'strings'] } },
  ],
};
const CONTAINER: Message = {
  1: ['name', 'string'],
  2: ['image', 'string'],
  3: ['command', 'strings'],
  4: ['args', 'strings'],
  5: ['workingDir', 'string'],
  6: [
    'ports',
    {
      repeated: {
        1: ['name', 'string'],
        2: ['hostPort', 'int'],
        3: ['containerPort', 'count'],
        4: ['protocol', 'string'],
        5: ['hostIP', 'string'],
      },
    },
  ],
  7: ['env', { repeated: { 1: ['name', 'string'], 2: ['value', 'string'] } }],
  14: ['imagePullPolicy', 'string'],
};
const POD_TEMPLATE: Message = {
  1: ['metadata', OBJECT_META],
  2: [
    'spec',
    {
      2: ['containers', { repeated: CONTAINER }],
      3: ['restartPolicy', 'string'],
      8: ['serviceAccountName', 'string'],
    },
  ],
};

// The review APIs (kubectl auth can-i / whoami send protobuf): k8s.io/api authorization/v1 and
// authentication/v1 generated.proto; selector attributes and extra are not decoded.
const RESOURCE_ATTRIBUTES: Message = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
};
const NON_RESOURCE_ATTRIBUTES: Message = { 1: ['path', 'string'], 2: ['verb', 'string'] };
const SUBJECT_ACCESS_REVIEW: Message = {
  1: ['metadata', OBJECT_META],
  2: [
    'spec',
    {
      1: ['resourceAttributes', RESOURCE_ATTRIBUTES],
      2: ['nonResourceAttributes', NON_RESOURCE_ATTRIBUTES],
      3: ['user', 'string'],
      4: ['groups', 'strings'],
      6: ['uid', 'string'],
    },
  ],
};

const KINDS: Record<string, Message> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: ['metadata', OBJECT_META],
    2: [
      'spec',
      {
        1: ['resourceAttributes', RESOURCE_ATTRIBUTES],
        2: ['nonResourceAttributes', NON_RESOURCE_ATTRIBUTES],
      },
    ],
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: ['metadata', OBJECT_META],
    2: ['spec', { 1: ['namespace', 'string'] }],
  },
  'authorization.k8s.io/v1/SubjectAccessReview': SUBJECT_ACCESS_REVIEW,
  'authorization.k8s.io/v1/LocalSubjectAccessReview': SUBJECT_ACCESS_REVIEW,
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: ['metadata', OBJECT_META] },
  'authentication.k8s.io/v1/TokenReview': {
    1: ['metadata', OBJECT_META],
    2: ['spec', { 1: ['token', 'string'], 2: ['audiences', 'strings'] }],
  },
  // `kubectl create deployment` (name, image, replicas, port, command): the fields it sets are decoded.
  'apps/v1/Deployment': {
    1: ['metadata', OBJECT_META],
    2: ['spec', { 1: ['replicas', 'count'], 2: ['selector', LABEL_SELECTOR], 3: ['template', POD_TEMPLATE] }],
  },
  'v1/Namespace': {
    1: ['metadata', OBJECT_META],
    2: ['spec', { 1: ['finalizers', 'strings'] }],
    3: ['status', { 1: ['phase', 'string'] }],
  },
  'v1/ConfigMap': {
    1: ['metadata', OBJECT_META],
    2: ['data', 'map'],
    3: ['binaryData', 'bytesmap'],
    4: ['immutable', 'bool'],
  },
  'v1/Secret': {
    1: ['metadata', OBJECT_META],
    2: ['data', 'bytesmap'],
    3: ['type', 'string'],
    4: ['stringData', 'map'],
    5: ['immutable', 'bool'],
  },
  'v1/ServiceAccount': {
    1: ['metadata', OBJECT_META],
    2: ['secrets', { repeated: OBJECT_REFERENCE }],
    3: ['imagePullSecrets', { repeated: { 1: ['name', 'string'] } }],
    4: ['automountServiceAccountToken', 'bool'],
  },
  'v1/DeleteOptions': {
    1: ['gracePeriodSeconds', 'int'],
    2: ['preconditions', { 1: ['uid', 'string'], 2: ['resourceVersion', 'string'] }],
    3: ['orphanDependents', 'bool'],
    4: ['propagationPolicy', 'string'],
    5: ['dryRun', 'strings'],
  },
};

interface Field {
  field: number;
  wire: number;
  value: bigint | Buffer;
}

function readVarint(buf: Buffer, start: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  let i = start;
  for (;;) {
    const byte = buf[i++];
    if (byte === undefined || shift > 63n) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    if ((byte & 0x80) === 0) return [result, i];
  }
}

function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let i = 0;
  while (i < buf.length) {
    const [key, next] = readVarint(buf, i);
    i = next;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buf, i);
      i = after;
      fields.push({ field, wire, value });
    } else if (wire === 2) {
      const [length, after] = readVarint(buf, i);
      const end = after + Number(length);
      if (end > buf.length) throw new Error('truncated field');
      fields.push({ field, wire, value: buf.subarray(after, end) });
      i = end;
    } else if (wire === 1) {
      i += 8;
    } else if (wire === 5) {
      i += 4;
    } else {
      throw new Error(`unsupported wire type ${wire}`);
    }
  }
  return fields;
}

function entryOf(buf: Buffer): [string, Buffer] {
  let key = '';
  let value: Buffer = Buffer.alloc(0);
  for (const f of readFields(buf)) {
    if (f.field === 1 && Buffer.isBuffer(f.value)) key = f.value.toString('utf8');
    if (f.field === 2 && Buffer.isBuffer(f.value)) value = f.value;
  }
  return [key, value];
}

function decodeTime(buf: Buffer): string | undefined {
  const t = decodeMessage(buf, TIME);
  if (typeof t.seconds !== 'number' || t.seconds === 0) return undefined;
  return new Date(t.seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

function decodeMessage(buf: Buffer, schema: Message): JsonObject {
  const out: JsonObject = {};
  for (const f of readFields(buf)) {
    const spec = schema[f.field];
    if (!spec) continue;
    const [name, kind] = spec;
    const bytes = Buffer.isBuffer(f.value) ? f.value : Buffer.alloc(0);
    if (kind === 'int' || kind === 'count') {
      if (typeof f.value === 'bigint' && (f.value !== 0n || kind === 'count')) {
        out[name] = Number(BigInt.asIntN(64, f.value));
      }
    } else if (kind === 'bool') {
      if (typeof f.value === 'bigint' && f.value !== 0n) out[name] = true;
    } else if (kind === 'string') {
      const text = bytes.toString('utf8');
      if (text !== '') out[name] = text;
    } else if (kind === 'bytes') {
      out[name] = bytes.toString('base64');
    } else if (kind === 'time') {
      const time = decodeTime(bytes);
      if (time !== undefined) out[name] = time;
    } else if (kind === 'strings') {
      const list = Array.isArray(out[name]) ? (out[name] as unknown[]) : [];
      list.push(bytes.toString('utf8'));
      out[name] = list;
    } else if (kind === 'map' || kind === 'bytesmap') {
      const map = isJsonObject(out[name]) ? out[name] : {};
      const [k, v] = entryOf(bytes);
      map[k] = kind === 'map' ? v.toString('utf8') : v.toString('base64');
      out[name] = map;
    } else if ('repeated' in kind) {
      const list = Array.isArray(out[name]) ? (out[name] as unknown[]) : [];
      list.push(decodeMessage(bytes, kind.repeated));
      out[name] = list;
    } else {
      out[name] = decodeMessage(bytes, kind);
    }
  }
  return out;
}

/** Decodes a `k8s\0`-framed protobuf body of a supported kind into a JSON object. */
export function decodeProtobufBody(body: Buffer): JsonObject {
  const unsupported = (why: string): Error =>
    unsupportedMediaType(
      `${why}; send application/json (protobuf is decoded only for ${Object.keys(KINDS).join(', ')})`,
      {},
    );
  if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\0')
    throw unsupported('not a Kubernetes protobuf body');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer = Buffer.alloc(0);
  try {
    for (const f of readFields(body.subarray(4))) {
      if (!Buffer.isBuffer(f.value)) continue;
      if (f.field === 1) {
        for (const t of readFields(f.value)) {
          if (t.field === 1 && Buffer.isBuffer(t.value)) apiVersion = t.value.toString('utf8');
          if (t.field === 2 && Buffer.isBuffer(t.value)) kind = t.value.toString('utf8');
        }
      } else if (f.field === 2) {
        raw = f.value;
      }
    }
  } catch {
    throw unsupported('malformed protobuf body');
  }
  const schema =
    KINDS[`${apiVersion}/${kind}`] ?? (kind === 'DeleteOptions' ? KINDS['v1/DeleteOptions'] : undefined);
  if (!schema) throw unsupported(`protobuf ${apiVersion} ${kind} is not supported`);
  try {
    return { apiVersion, kind, ...decodeMessage(raw, schema) };
  } catch {
    throw unsupported('malformed protobuf body');
  }
}
