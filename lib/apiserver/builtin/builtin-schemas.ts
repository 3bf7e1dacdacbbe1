import generated from './generated/builtin-schemas.json' with { type: 'json' };
import type { JSONSchemaProps } from '../schema/json-schema-props.js';

/**
 * The built-in kinds' schemas, generated from the OpenAPI v3 documents of the Kubernetes version the server
 * emulates (scripts/gen-builtin-schemas.mjs; regenerate after changing its kind list). Each definition is
 * turned once into a JSONSchemaProps graph with its `$ref`s resolved to shared objects (JSONSchemaProps of
 * CRDs refers to itself, so the graph has cycles: walk it along an object, never whole).
 */

/** A schema node as the generator writes it: OpenAPI v3 reduced to what the server uses. */
interface GeneratedNode {
  $ref?: string;
  type?: string;
  format?: string;
  /** A string default (protocol TCP), or `{}` on a struct held by value. */
  default?: string | Record<string, never>;
  required?: string[];
  enum?: unknown[];
  properties?: Record<string, GeneratedNode>;
  items?: GeneratedNode;
  additionalProperties?: GeneratedNode | boolean;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  /** A scalar Go holds by value with omitempty: its zero value is never encoded. */
  'x-reconcilekit-omit-zero'?: boolean;
  /** A time Go holds by value without omitzero: encoded as null when unset. */
  'x-reconcilekit-zero-null'?: boolean;
}

export interface GeneratedSchemas {
  source: string;
  kinds: { group: string; version: string; kind: string; definition: string }[];
  definitions: Record<string, GeneratedNode>;
}

/** A built-in schema node: JSONSchemaProps plus the strategic-merge-patch extensions. */
export interface BuiltInSchema extends JSONSchemaProps {
  properties?: Record<string, BuiltInSchema>;
  items?: BuiltInSchema;
  additionalProperties?: BuiltInSchema | boolean;
  /** `merge`, `replace`, `retainKeys` or `merge,retainKeys` (the Go field's patchStrategy tag). */
  'x-kubernetes-patch-strategy'?: string;
  /** The field items of a `merge` list are identified by in a strategic merge patch (patchMergeKey tag). */
  'x-kubernetes-patch-merge-key'?: string;
}

export const GENERATED_SCHEMAS = generated as unknown as GeneratedSchemas;

let definitions: Map<string, BuiltInSchema> | undefined;
let byKind: Map<string, BuiltInSchema> | undefined;

const NODE_KEYS = [
  'type',
  'format',
  'default',
  'required',
  'enum',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
] as const;

function resolveAll(): Map<string, BuiltInSchema> {
  const defs = new Map<string, BuiltInSchema>();
  for (const name of Object.keys(GENERATED_SCHEMAS.definitions)) defs.set(name, {});
  /** Nodes that are a `$ref` plus extensions of their own: filled from the definition after pass 1. */
  const refNodes: { node: BuiltInSchema; ref: BuiltInSchema }[] = [];
  const convert = (source: GeneratedNode, target: BuiltInSchema): BuiltInSchema => {
    for (const key of NODE_KEYS) {
      const value = source[key];
      if (value !== undefined) Object.assign(target, { [key]: value });
    }
    if (source.properties) {
      const properties: Record<string, BuiltInSchema> = {};
      for (const [name, child] of Object.entries(source.properties)) properties[name] = node(child);
      target.properties = properties;
    }
    if (source.items) target.items = node(source.items);
    if (typeof source.additionalProperties === 'object') {
      target.additionalProperties = node(source.additionalProperties);
    } else if (source.additionalProperties !== undefined) {
      target.additionalProperties = source.additionalProperties;
    }
    // An object (or untyped value) the OpenAPI does not describe — FieldsV1, RawExtension, Quantity,
    // apiextensions JSON — keeps whatever it holds.
    const described = source.properties ?? source.items ?? source.additionalProperties ?? source.$ref;
    if (described === undefined) {
      if (source.type === undefined || source.type === 'object') {
        target['x-kubernetes-preserve-unknown-fields'] = true;
      }
    }
    if (source.format === 'int-or-string') target['x-kubernetes-int-or-string'] = true;
    return target;
  };
  const node = (source: GeneratedNode): BuiltInSchema => {
    if (source.$ref === undefined) return convert(source, {});
    const ref = defs.get(source.$ref);
    if (ref === undefined) throw new Error(`generated built-in schema: ${source.$ref} is not defined`);
    const own = Object.keys(source).filter((k) => k !== '$ref');
    if (own.length === 0) return ref;
    const target = convert(source, {});
    refNodes.push({ node: target, ref });
    return target;
  };
  for (const [name, source] of Object.entries(GENERATED_SCHEMAS.definitions)) {
    const target = defs.get(name);
    if (target) convert(source, target);
  }
  for (const { node: target, ref } of refNodes) {
    for (const [key, value] of Object.entries(ref) as [string, unknown][]) {
      if (!Object.hasOwn(target, key)) Object.assign(target, { [key]: value });
    }
  }
  return defs;
}

function kindKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** Every resolved definition by its OpenAPI name (`io.k8s.api.core.v1.PodSpec`), built on first use. */
export function builtInDefinitions(): Map<string, BuiltInSchema> {
  definitions ??= resolveAll();
  return definitions;
}

/** The schema of a built-in kind, or undefined when the generated data does not hold it. */
export function builtInSchema(group: string, version: string, kind: string): BuiltInSchema | undefined {
  if (byKind === undefined) {
    const defs = builtInDefinitions();
    byKind = new Map();
    for (const k of GENERATED_SCHEMAS.kinds) {
      const schema = defs.get(k.definition);
      if (schema) byKind.set(kindKey(k.group, k.version, k.kind), schema);
    }
  }
  return byKind.get(kindKey(group, version, kind));
}
