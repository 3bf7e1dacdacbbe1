import type { JSONSchemaProps } from '../schema/json-schema-props.js';

/** CEL identifiers kube escapes when a property name collides with them (k8s.io/apiserver/pkg/cel/escaping.go). */
const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** The CEL field name of a schema property, or undefined when kube cannot make it accessible. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  const escaped = name
    .replaceAll('__', '__underscores__')
    .replaceAll('.', '__dot__')
    .replaceAll('-', '__dash__')
    .replaceAll('/', '__slash__');
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(escaped) ? escaped : undefined;
}

function map(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** A JSON number as CEL sees it: an int (bigint) when the schema says integer or it is integral and untyped. */
function number(value: number, schema: JSONSchemaProps | undefined): unknown {
  const wantsInt =
    schema?.type === 'integer' ||
    schema?.['x-kubernetes-int-or-string'] === true ||
    (schema?.type === undefined && Number.isInteger(value));
  return wantsInt && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/**
 * Converts a JSON value to the CEL value kube's rules see (k8s.io/apiserver/pkg/cel/common/values.go):
 * integers are ints, `date`/`date-time` strings are timestamps, properties are reached by their escaped
 * names, and objects are maps. `embedded` adds apiVersion/kind/metadata.name/generateName (the root).
 */
export function toCelValue(value: unknown, schema: JSONSchemaProps | undefined, embedded = false): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return number(value, schema);
  if (typeof value === 'string') {
    if (schema?.format === 'date-time' || schema?.format === 'date') {
      const time = Date.parse(value);
      if (!Number.isNaN(time)) return new Date(time);
    }
    return value;
  }
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, schema?.items));
  const source = value as Record<string, unknown>;
  const out = map();
  const properties = schema?.properties;
  const additional =
    typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const preserve = schema === undefined || schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [key, child] of Object.entries(source)) {
    if (child === undefined) continue;
    if (properties !== undefined && Object.hasOwn(properties, key)) {
      const name = escapePropertyName(key);
      if (name !== undefined) out[name] = toCelValue(child, properties[key]);
    } else if (additional !== undefined) {
      out[key] = toCelValue(child, additional);
    } else if (preserve) {
      out[key] = toCelValue(child, undefined);
    }
  }
  if (embedded || schema?.['x-kubernetes-embedded-resource'] === true) {
    if (typeof source.apiVersion === 'string') out.apiVersion = source.apiVersion;
    if (typeof source.kind === 'string') out.kind = source.kind;
    const meta = source.metadata;
    if (typeof meta === 'object' && meta !== null && !Array.isArray(meta)) {
      const m = map();
      const { name, generateName } = meta as Record<string, unknown>;
      if (typeof name === 'string') m.name = name;
      if (typeof generateName === 'string') m.generateName = generateName;
      out.metadata = m;
    }
  }
  return out;
}
