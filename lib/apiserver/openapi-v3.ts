import descriptionData from './builtin/generated/builtin-descriptions.json' with { type: 'json' };
import { GENERATED_SCHEMAS } from './builtin/builtin-schemas.js';
import { builtinTypes } from './builtin-types.js';

/**
 * /openapi/v3 for the built-in kinds, from the generated schemas (kubectl explain reads it): the root lists
 * one document per built-in group-version; each document holds every generated definition as OpenAPI v3
 * components (`$ref`s behind `allOf`, as kube-apiserver writes them) with their descriptions; the
 * documents are built on the first request.
 */
type Json = Record<string, unknown>;

const PREFIX = '#/components/schemas/';
let documents: Map<string, Json> | undefined;

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

function expand(node: Json, description?: string): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref') continue;
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

function build(): Map<string, Json> {
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

/** The /openapi/v3 root: one entry per group-version document. */
export function openApiV3Root(): Json {
  const paths: Json = {};
  for (const kind of GENERATED_SCHEMAS.kinds) {
    const path = groupVersionPath(kind.group, kind.version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=reconcilekit-v1.34.4` };
  }
  return { paths };
}

/** The document for `api/v1` or `apis/<group>/<version>`, or undefined when none is served. */
export function openApiV3Document(path: string): Json | undefined {
  documents ??= build();
  return documents.get(path);
}
