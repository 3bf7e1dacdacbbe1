import { createHash } from 'node:crypto';
import descriptionData from './builtin/generated/builtin-descriptions.json' with { type: 'json' };
import { GENERATED_SCHEMAS } from './builtin/builtin-schemas.js';
import { builtinTypes } from './builtin-types.js';
import type { Registry } from './registry.js';
import type { ResourceType } from './resource-type.js';

/**
 * /openapi/v3 (kubectl explain reads it). Built-in kinds: the root lists one document per built-in
 * group-version; each document holds every generated definition as OpenAPI v3 components (`$ref`s behind
 * `allOf`, as kube-apiserver writes them) with their descriptions; the documents are built on the first
 * request. Custom resources: one document per served CRD group-version, built from the registry on
 * each request (so a CRD change shows at once) as apiextensions-apiserver's
 * pkg/controller/openapi/builder does: the version's schema under `<reversed group>.<version>.<Kind>`
 * with apiVersion/kind/metadata filled in, a `<Kind>List`, the ObjectMeta/ListMeta definitions they
 * reference, and the GET path kubectl explain finds the schema through; the root's `hash` is the
 * document's digest, so kubectl's cache sees a changed CRD.
 */
type Json = Record<string, unknown>;

const PREFIX = '#/components/schemas/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
let documents: Map<string, Json> | undefined;
let metaDefinitions: Json | undefined;

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function expand(node: Json, description?: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    // The generator's own markers (x-reconcilekit-*) are not kube's and are not published.
    if (key === '$ref' || key.startsWith('x-reconcilekit-')) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Json>).map(([name, child]) => [name, expand(child)]),
      );
    } else if (
      (key === 'items' || key === 'additionalProperties') &&
      typeof value === 'object' &&
      value !== null
    ) {
      out[key] = expand(value as Json);
    } else out[key] = value;
  }
  if (typeof node.$ref === 'string') out.allOf = [{ $ref: `${PREFIX}${node.$ref}` }];
  if (description !== undefined) out.description = description;
  return out;
}

function builtInComponents(): Json {
  const descriptions = descriptionData as unknown as Record<string, Record<string, string>>;
  const schemas: Json = {};
  for (const [name, node] of Object.entries(GENERATED_SCHEMAS.definitions)) {
    const text = descriptions[name] ?? {};
    const expanded = expand(node as Json, text['']);
    const properties = expanded.properties as Record<string, Json> | undefined;
    for (const [prop, child] of Object.entries(properties ?? {})) {
      const d = text[prop];
      if (d !== undefined) child.description = d;
    }
    schemas[name] = expanded;
  }
  return schemas;
}

function build(): Map<string, Json> {
  const schemas = builtInComponents();
  metaDefinitions ??= metaClosure(schemas);
  const docs = new Map<string, Json>();
  for (const kind of GENERATED_SCHEMAS.kinds) {
    docs.set(groupVersionPath(kind.group, kind.version), {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: 'v1.34.4' },
      paths: {},
      components: { schemas },
    });
  }
  // kubectl explain finds a resource's schema through the GET operation of its path.
  for (const type of builtinTypes()) {
    const version = type.storageVersion;
    const gvPath = groupVersionPath(type.group, version);
    const doc = docs.get(gvPath);
    const kind = GENERATED_SCHEMAS.kinds.find(
      (k) => k.group === type.group && k.version === version && k.kind === type.kind,
    );
    if (doc === undefined || kind === undefined) continue;
    const scope = type.namespaced ? '/namespaces/{namespace}' : '';
    const schema = { $ref: `${PREFIX}${kind.definition}` };
    (doc.paths as Json)[`/${gvPath}${scope}/${type.resource}/{name}`] = {
      get: {
        responses: { '200': { content: { 'application/json': { schema } }, description: 'OK' } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': { group: type.group, version, kind: type.kind },
      },
    };
  }
  return docs;
}

/** The /openapi/v3 root: one entry per group-version document, built-in and custom. */
export function openApiV3Root(registry: Registry): Json {
  const paths: Json = {};
  for (const kind of GENERATED_SCHEMAS.kinds) {
    const path = groupVersionPath(kind.group, kind.version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=reconcilekit-v1.34.4` };
  }
  for (const [path, types] of customGroupVersions(registry)) {
    if (paths[path] !== undefined) continue;
    const hash = createHash('sha512')
      .update(JSON.stringify(customDocument(path, types)))
      .digest('hex')
      .toUpperCase();
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

/** The document for `api/v1` or `apis/<group>/<version>`, or undefined when none is served. */
export function openApiV3Document(path: string, registry: Registry): Json | undefined {
  documents ??= build();
  const builtIn = documents.get(path);
  if (builtIn !== undefined) return builtIn;
  const types = customGroupVersions(registry).get(path);
  return types === undefined ? undefined : customDocument(path, types);
}

/** CRD-registered types by the group-version path of each version they serve. */
function customGroupVersions(registry: Registry): Map<string, { type: ResourceType; version: string }[]> {
  const out = new Map<string, { type: ResourceType; version: string }[]>();
  for (const type of registry.all()) {
    if (type.builtin) continue;
    for (const version of type.versions) {
      const path = groupVersionPath(type.group, version.name);
      const list = out.get(path) ?? [];
      list.push({ type, version: version.name });
      out.set(path, list);
    }
  }
  return out;
}

/** The ObjectMeta and ListMeta definitions with everything they reference. */
function metaClosure(schemas: Json): Json {
  const out: Json = {};
  const visit = (name: string): void => {
    if (out[name] !== undefined || schemas[name] === undefined) return;
    out[name] = schemas[name];
    JSON.stringify(schemas[name], (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(PREFIX)) {
        visit(value.slice(PREFIX.length));
      }
      return value;
    });
  };
  visit(`${META}.ObjectMeta`);
  visit(`${META}.ListMeta`);
  return out;
}

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/** `widgets.example.com` → `com.example.widgets` (the builder's definition-name prefix). */
function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

/** apiVersion, kind and metadata as kube fills them into a resource (root or embedded). */
function resourceProperties(properties: Json | undefined): Json {
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = properties ?? {};
  return {
    apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
    kind: { description: KIND_DESCRIPTION, type: 'string' },
    metadata: { description: METADATA_DESCRIPTION, allOf: [{ $ref: `${PREFIX}${META}.ObjectMeta` }] },
    ...rest,
  };
}

/** A CRD schema node with embedded resources given apiVersion/kind/metadata; everything else as written. */
function withEmbeddedResources(node: unknown, depth = 0): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > 64) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(
        Object.entries(value as Json).map(([name, child]) => [name, withEmbeddedResources(child, depth + 1)]),
      );
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = withEmbeddedResources(value, depth + 1);
    } else out[key] = value;
  }
  if (out['x-kubernetes-embedded-resource'] === true) {
    out.properties = resourceProperties(out.properties as Json | undefined);
  }
  return out;
}

function customDocument(path: string, entries: { type: ResourceType; version: string }[]): Json {
  metaDefinitions ??= metaClosure(builtInComponents());
  const schemas: Json = { ...metaDefinitions };
  const paths: Json = {};
  for (const { type, version } of entries) {
    const served = type.versions.find((v) => v.name === version);
    const gvk = { group: type.group, version, kind: type.kind };
    const name = `${reversedGroup(type.group)}.${version}.${type.kind}`;
    const schema = (withEmbeddedResources(served?.schema ?? { type: 'object' }) ?? {}) as Json;
    const { properties, ...root } = schema;
    schemas[name] = {
      ...root,
      type: 'object',
      properties: resourceProperties(properties as Json | undefined),
      'x-kubernetes-group-version-kind': [gvk],
    };
    schemas[`${name}List`] = {
      description: `${type.kind}List is a list of ${type.kind}`,
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
        items: {
          description: `List of ${type.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
          type: 'array',
          items: { $ref: `${PREFIX}${name}` },
        },
        kind: { description: KIND_DESCRIPTION, type: 'string' },
        metadata: {
          description:
            'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
          allOf: [{ $ref: `${PREFIX}${META}.ListMeta` }],
        },
      },
      'x-kubernetes-group-version-kind': [{ ...gvk, kind: type.listKind }],
    };
    const scope = type.namespaced ? '/namespaces/{namespace}' : '';
    const read = (ref: string, action: string, kind: Json) => ({
      get: {
        description: `${action === 'list' ? 'list or watch objects of kind' : 'read the specified'} ${type.kind}`,
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { $ref: `${PREFIX}${ref}` } } },
          },
          '401': { description: 'Unauthorized' },
        },
        'x-kubernetes-action': action,
        'x-kubernetes-group-version-kind': kind,
      },
    });
    paths[`/${path}${scope}/${type.resource}`] = read(`${name}List`, 'list', gvk);
    paths[`/${path}${scope}/${type.resource}/{name}`] = read(name, 'get', gvk);
    if (type.statusSubresource) {
      paths[`/${path}${scope}/${type.resource}/{name}/status`] = read(name, 'get', gvk);
    }
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths,
    components: { schemas },
  };
}
