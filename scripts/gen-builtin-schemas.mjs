#!/usr/bin/env node
// Generates lib/apiserver/builtin/generated/builtin-schemas.json from the OpenAPI v3 documents of the
// Kubernetes version the embedded server emulates (k8s.io/kubernetes api/openapi-spec/v3 in the Go module
// cache; `cd envtest && go mod download k8s.io/kubernetes` fetches it). Only what the server uses is kept:
// the kinds it serves (and the few it may serve), every definition they reach, and of each schema node the
// type, format, properties, required, items, additionalProperties, enum and the x-kubernetes-* extensions
// (patch strategy/merge key, list type/map keys, map type, int-or-string, group-version-kind). Descriptions
// (only kubectl explain reads them, through /openapi/v3) go to builtin-descriptions.json, loaded on first use:
// per definition, its own ("") and its properties' descriptions.
//
// Usage: node scripts/gen-builtin-schemas.mjs [openapi-spec/v3 dir]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KUBE_VERSION = 'v1.34.4';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function goModCache() {
  return execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
}

function specDir() {
  if (process.argv[2]) return process.argv[2];
  return join(goModCache(), `k8s.io/kubernetes@${KUBE_VERSION}`, 'api/openapi-spec/v3');
}

/** Group/version → the kinds kept (the served ones and the ones operators manage). */
const KINDS = {
  'core/v1': [
    'Namespace',
    'ConfigMap',
    'Secret',
    'Service',
    'ServiceAccount',
    'Endpoints',
    'Pod',
    'Event',
    'PersistentVolumeClaim',
    'PersistentVolume',
    'ReplicationController',
    'Node',
    'PodTemplate',
    'LimitRange',
    'ResourceQuota',
  ],
  'apps/v1': ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ControllerRevision'],
  'batch/v1': ['Job', 'CronJob'],
  'autoscaling/v1': ['Scale', 'HorizontalPodAutoscaler'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'coordination.k8s.io/v1': ['Lease'],
  'events.k8s.io/v1': ['Event'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'networking.k8s.io/v1': ['Ingress', 'IngressClass', 'NetworkPolicy'],
  'policy/v1': ['PodDisruptionBudget'],
  'storage.k8s.io/v1': ['StorageClass'],
  'scheduling.k8s.io/v1': ['PriorityClass'],
  'discovery.k8s.io/v1': ['EndpointSlice'],
  'admissionregistration.k8s.io/v1': ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'],
  'authorization.k8s.io/v1': [
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SubjectAccessReview',
    'LocalSubjectAccessReview',
  ],
  'authentication.k8s.io/v1': ['SelfSubjectReview', 'TokenReview'],
};

function fileOf(groupVersion) {
  const [group, version] = groupVersion.split('/');
  return group === 'core' ? 'api__v1_openapi.json' : `apis__${group}__${version}_openapi.json`;
}

const REF_PREFIX = '#/components/schemas/';
const KEPT = new Set([
  'type',
  'format',
  'required',
  'enum',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-unions',
]);

function isEmptyObject(value) {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/**
 * What the OpenAPI cannot say about a field: whether its Go field is a value (not a pointer) tagged
 * omitempty, so that a zero value (0, "", false) is not encoded — a Deployment's `minReadySeconds: 0` is
 * gone once kube has decoded it, its `replicas: 0` (a pointer) stays — and whether a time is held by value
 * without omitzero, so that it is encoded as null when unset. Read from the Go sources of the API
 * types in the module cache (k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver).
 */
const STAGING = {
  'io.k8s.api.': (rest) => `k8s.io/api@v0.${KUBE_VERSION.slice(3)}/${rest}`,
  'io.k8s.apimachinery.pkg.': (rest) => `k8s.io/apimachinery@v0.${KUBE_VERSION.slice(3)}/pkg/${rest}`,
  'io.k8s.apiextensions-apiserver.pkg.': (rest) =>
    `k8s.io/apiextensions-apiserver@v0.${KUBE_VERSION.slice(3)}/pkg/${rest}`,
};
const goStructCache = new Map();

function goStructs(packageDir) {
  if (goStructCache.has(packageDir)) return goStructCache.get(packageDir);
  const structs = new Map();
  const dir = join(goModCache(), packageDir);
  if (existsSync(dir)) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
        const fields = new Map();
        for (const f of m[2].matchAll(/^\s+\w+\s+(\*?)([\w.]+)\s+`json:"(\w+)((?:,\w+)*)"/gm)) {
          const options = f[4].split(',');
          fields.set(f[3], {
            pointer: f[1] === '*',
            type: f[2],
            omitempty: options.includes('omitempty'),
            omitzero: options.includes('omitzero'),
          });
        }
        structs.set(m[1], fields);
      }
    }
  }
  goStructCache.set(packageDir, structs);
  return structs;
}

/** The Go fields of a definition (`io.k8s.api.apps.v1.DeploymentSpec`), or undefined when not found. */
function goFields(definitionName) {
  for (const [prefix, toDir] of Object.entries(STAGING)) {
    if (!definitionName.startsWith(prefix)) continue;
    const parts = definitionName.slice(prefix.length).split('.');
    const type = parts.pop();
    return goStructs(toDir(parts.join('/'))).get(type);
  }
  return undefined;
}

/** One schema node reduced to what the server uses; `$ref` (also behind allOf) becomes `$ref: <name>`. */
function reduce(node, reached) {
  const out = {};
  const refHolder = node.$ref
    ? node
    : node.allOf?.length === 1 && node.allOf[0].$ref
      ? node.allOf[0]
      : undefined;
  if (refHolder) {
    const name = refHolder.$ref.slice(REF_PREFIX.length);
    reached.push(name);
    out.$ref = name;
  }
  for (const key of Object.keys(node)) {
    if (KEPT.has(key)) out[key] = node[key];
  }
  // String defaults only (protocol TCP, …): server-side apply fills a list-map key left out with them.
  if (typeof node.default === 'string' && node.default !== '') out.default = node.default;
  // `default: {}` marks a struct held by value: Go encodes it even when empty, which is what decides
  // whether managedFields record the node itself (`.`) when a write adds it.
  if (refHolder && isEmptyObject(node.default)) out.default = {};
  if (node.properties) {
    out.properties = {};
    for (const [k, v] of Object.entries(node.properties)) out.properties[k] = reduce(v, reached);
  }
  if (node.items) out.items = reduce(node.items, reached);
  if (node.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof node.additionalProperties === 'object'
        ? reduce(node.additionalProperties, reached)
        : node.additionalProperties;
  }
  if (node['x-kubernetes-group-version-kind']) {
    out['x-kubernetes-group-version-kind'] = node['x-kubernetes-group-version-kind'];
  }
  return out;
}

const dir = specDir();
if (!existsSync(dir)) {
  console.error(`${dir} not found: run \`cd envtest && go mod download k8s.io/kubernetes\` first`);
  process.exit(1);
}

// Definitions are identical across documents; Scale (autoscaling/v1) is only in the core and apps ones.
const schemas = {};
for (const groupVersion of Object.keys(KINDS)) {
  Object.assign(
    schemas,
    JSON.parse(readFileSync(join(dir, fileOf(groupVersion)), 'utf8')).components.schemas,
  );
}
const byGvk = new Map();
for (const [name, schema] of Object.entries(schemas)) {
  for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
    byGvk.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
  }
}

const definitions = {};
const descriptions = {};
const kinds = [];
const queue = [];
for (const [groupVersion, wanted] of Object.entries(KINDS)) {
  const [g, version] = groupVersion.split('/');
  const group = g === 'core' ? '' : g;
  for (const kind of wanted) {
    const name = byGvk.get(`${group}/${version}/${kind}`);
    if (!name) throw new Error(`${groupVersion} ${kind}: no schema`);
    kinds.push({ group, version, kind, definition: name });
    queue.push(name);
  }
}
while (queue.length > 0) {
  const name = queue.pop();
  if (definitions[name]) continue;
  const schema = schemas[name];
  if (!schema) throw new Error(`${name}: referenced but not defined`);
  const reached = [];
  definitions[name] = reduce(schema, reached);
  const fields = goFields(name);
  for (const [prop, node] of Object.entries(definitions[name].properties ?? {})) {
    const field = fields?.get(prop);
    const scalar = ['string', 'integer', 'number', 'boolean'].includes(node.type) && node.$ref === undefined;
    if (scalar && field !== undefined && !field.pointer && field.omitempty)
      node['x-reconcilekit-omit-zero'] = true;
    // A metav1.Time held by value and not omitzero is encoded as null when unset (a condition's lastUpdateTime).
    const time = field !== undefined && /(^|\.)(Micro)?Time$/.test(field.type);
    if (time && !field.pointer && !field.omitzero) node['x-reconcilekit-zero-null'] = true;
  }
  const text = {};
  if (schema.description) text[''] = schema.description;
  for (const [prop, child] of Object.entries(schema.properties ?? {}))
    if (child.description) text[prop] = child.description;
  descriptions[name] = text;
  queue.push(...reached);
}

const sorted = Object.fromEntries(
  Object.keys(definitions)
    .sort()
    .map((k) => [k, definitions[k]]),
);
const out = join(root, 'lib/apiserver/builtin/generated/builtin-schemas.json');
mkdirSync(dirname(out), { recursive: true });
const body = JSON.stringify({
  source: `k8s.io/kubernetes@${KUBE_VERSION} api/openapi-spec/v3 (scripts/gen-builtin-schemas.mjs)`,
  kinds,
  definitions: sorted,
});
writeFileSync(out, `${body}\n`);
const descOut = join(dirname(out), 'builtin-descriptions.json');
const descBody = JSON.stringify(
  Object.fromEntries(
    Object.keys(descriptions)
      .sort()
      .map((k) => [k, descriptions[k]]),
  ),
);
writeFileSync(descOut, `${descBody}\n`);
console.log(`${out}: ${Object.keys(sorted).length} definitions, ${kinds.length} kinds, ${body.length} bytes`);
console.log(`${descOut}: ${descBody.length} bytes`);
