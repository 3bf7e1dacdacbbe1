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
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KUBE_VERSION = 'v1.34.4';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function specDir() {
  if (process.argv[2]) return process.argv[2];
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  return join(cache, `k8s.io/kubernetes@${KUBE_VERSION}`, 'api/openapi-spec/v3');
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
