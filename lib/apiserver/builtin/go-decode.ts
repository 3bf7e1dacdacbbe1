import { parseQuantity } from '../cel/quantity.js';
import { isJsonObject } from '../json.js';
import { GENERATED_SCHEMAS, type GeneratedSchemas } from './builtin-schemas.js';

/**
 * The type errors kube-apiserver's decoding into the built-in kinds' Go types reports, found by walking a
 * body along the generated OpenAPI definitions (which name each Go struct and give each field's Go kind):
 * - a JSON body (POST/PUT, the result of a JSON or merge patch) goes through encoding/json, which
 *   reports the first mismatch in document order as `json: cannot unmarshal string into Go struct field
 *   DeploymentSpec.spec.replicas of type int32`;
 * - a strategic-merge-patched object goes through runtime.DefaultUnstructuredConverter.FromUnstructured
 *   (`unrecognized type: int32`, `cannot convert int64 to string`, `cannot restore slice from map`).
 * What the OpenAPI cannot tell: the name of a named Go type behind a string or map (`v1.Protocol`,
 * `v1.ResourceList`) — the texts say `string` / `map[string]resource.Quantity` there.
 */
type Node = GeneratedSchemas['definitions'][string];

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIMES = new Set([
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
]);
/** ParseQuantity's ErrFormatWrong (k8s.io/apimachinery/pkg/api/resource/quantity.go). */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

type GoType =
  | { kind: 'struct'; name: string; node: Node }
  | { kind: 'slice'; elem: Node }
  | { kind: 'map'; elem: Node }
  | { kind: 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'float64' }
  | { kind: 'quantity' | 'intorstring' | 'time' | 'any'; name?: string };

function definition(name: string): Node | undefined {
  const defs = GENERATED_SCHEMAS.definitions;
  return Object.hasOwn(defs, name) ? defs[name] : undefined;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec` (Go's package-qualified type name). */
function goName(ref: string): string {
  return ref.split('.').slice(-2).join('.');
}

function typeOf(node: Node): GoType {
  const ref = node.$ref;
  if (ref !== undefined) {
    if (ref === QUANTITY) return { kind: 'quantity' };
    if (ref === INT_OR_STRING) return { kind: 'intorstring' };
    if (TIMES.has(ref)) return { kind: 'time' };
    const def = definition(ref);
    if (def === undefined) return { kind: 'any' };
    if (def.properties !== undefined) return { kind: 'struct', name: goName(ref), node: def };
    const inner = typeOf(def);
    return inner.kind === 'any' ? { kind: 'any', name: goName(ref) } : inner;
  }
  if (node.format === 'int-or-string') return { kind: 'intorstring' };
  switch (node.type) {
    case 'array':
      return node.items === undefined ? { kind: 'any' } : { kind: 'slice', elem: node.items };
    case 'object':
      if (node.properties !== undefined) return { kind: 'struct', name: 'struct', node };
      return typeof node.additionalProperties === 'object'
        ? { kind: 'map', elem: node.additionalProperties }
        : { kind: 'any' };
    case 'string':
      return { kind: node.format === 'byte' ? 'bytes' : 'string' };
    case 'boolean':
      return { kind: 'bool' };
    case 'integer':
      return { kind: node.format === 'int64' ? 'int64' : 'int32' };
    case 'number':
      return { kind: 'float64' };
    default:
      return { kind: 'any' };
  }
}

/** The Go type's String(): `int32`, `[]v1.Container`, `map[string]string`, `v1.LabelSelector`. */
function typeName(type: GoType): string {
  switch (type.kind) {
    case 'struct':
      return type.name;
    case 'slice':
      return `[]${typeName(typeOf(type.elem))}`;
    case 'map':
      return `map[string]${typeName(typeOf(type.elem))}`;
    case 'bytes':
      return '[]uint8';
    case 'quantity':
      return 'resource.Quantity';
    case 'intorstring':
      return 'intstr.IntOrString';
    case 'time':
      return 'v1.Time';
    case 'any':
      return type.name ?? 'interface {}';
    default:
      return type.kind;
  }
}

/** encoding/json's name for a JSON value in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return Array.isArray(value) ? 'array' : 'object';
}

function fitsInt(value: number, kind: 'int32' | 'int64'): boolean {
  if (!Number.isInteger(value)) return false;
  return kind === 'int32' ? value >= INT32_MIN && value <= INT32_MAX : Math.abs(value) <= 2 ** 63;
}

/** A quantity's JSON as Quantity.UnmarshalJSON reads it: a string's content, anything else raw. */
function quantityOk(value: unknown): boolean {
  if (typeof value === 'number') return true;
  if (typeof value !== 'string') return false;
  return parseQuantity(value.trim()) !== undefined;
}

interface JsonContext {
  struct: string;
  path: string[];
}

function unmarshalError(what: string, ctx: JsonContext, type: string): string {
  return `json: cannot unmarshal ${what} into Go struct field ${ctx.struct}.${ctx.path.join('.')} of type ${type}`;
}

/** encoding/json into `type`: the first error in document order, or undefined. */
function decodeJson(value: unknown, type: GoType, ctx: JsonContext): string | undefined {
  if (value === null) return undefined;
  switch (type.kind) {
    case 'any':
      return undefined;
    case 'struct': {
      if (!isJsonObject(value)) return unmarshalError(jsonKind(value), ctx, type.name);
      const properties = type.node.properties ?? {};
      for (const [key, item] of Object.entries(value)) {
        if (!Object.hasOwn(properties, key)) continue;
        const child = properties[key];
        if (child === undefined) continue;
        const found = decodeJson(item, typeOf(child), {
          struct: type.name.split('.').pop() ?? type.name,
          path: [...ctx.path, key],
        });
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'slice': {
      if (!Array.isArray(value)) return unmarshalError(jsonKind(value), ctx, typeName(type));
      const elem = typeOf(type.elem);
      for (const item of value) {
        const found = decodeJson(item, elem, ctx);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'map': {
      if (!isJsonObject(value)) return unmarshalError(jsonKind(value), ctx, typeName(type));
      const elem = typeOf(type.elem);
      for (const item of Object.values(value)) {
        const found = decodeJson(item, elem, ctx);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'string':
    case 'bytes':
      return typeof value === 'string' ? undefined : unmarshalError(jsonKind(value), ctx, typeName(type));
    case 'bool':
      return typeof value === 'boolean' ? undefined : unmarshalError(jsonKind(value), ctx, 'bool');
    case 'float64':
      return typeof value === 'number' ? undefined : unmarshalError(jsonKind(value), ctx, 'float64');
    case 'int32':
    case 'int64':
    case 'intorstring': {
      if (type.kind === 'intorstring' && typeof value === 'string') return undefined;
      const kind = type.kind === 'int64' ? 'int64' : 'int32';
      if (typeof value !== 'number') return unmarshalError(jsonKind(value), ctx, kind);
      return fitsInt(value, kind) ? undefined : unmarshalError(`number ${String(value)}`, ctx, kind);
    }
    case 'time':
      return typeof value === 'string' ? undefined : unmarshalError(jsonKind(value), ctx, 'string');
    case 'quantity':
      return quantityOk(value) ? undefined : QUANTITY_FORMAT_ERROR;
  }
}

/** The definition name of a built-in kind, or undefined when the generated data does not hold it. */
export function builtInDefinitionName(group: string, version: string, kind: string): string | undefined {
  return GENERATED_SCHEMAS.kinds.find((k) => k.group === group && k.version === version && k.kind === kind)
    ?.definition;
}

/**
 * What encoding/json says about decoding `body` into the kind's Go type (e.g. `json: cannot unmarshal
 * string into Go struct field DeploymentSpec.spec.replicas of type int32`), or undefined when it decodes.
 */
export function jsonDecodeError(body: Record<string, unknown>, definitionName: string): string | undefined {
  const def = definition(definitionName);
  if (def === undefined) return undefined;
  const name = goName(definitionName);
  return decodeJson(body, { kind: 'struct', name, node: def }, { struct: name, path: [] });
}

/** reflect's Kind name of a value decoded from JSON as unstructured (integers are int64). */
function unstructuredKind(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? 'slice' : 'map';
}

function scalarConvertError(
  value: unknown,
  target: 'string' | 'bool' | 'int32' | 'int64' | 'float64',
): string | undefined {
  const source = unstructuredKind(value);
  if (source === target) return undefined;
  if (source === 'int64' && (target === 'int32' || target === 'float64')) return undefined;
  if (source === 'float64' && target === 'int64') return `cannot convert float64 to ${target}`;
  if (source === 'float64' && target === 'int32') return `cannot convert float64 to ${target}`;
  // reflect: an int converts to a string (as a rune), which FromUnstructured refuses by name.
  if (source === 'int64' && target === 'string') return 'cannot convert int64 to string';
  return `unrecognized type: ${target}`;
}

/** FromUnstructured into `type`: the first error, or undefined. */
function convertUnstructured(value: unknown, type: GoType): string | undefined {
  if (value === null) return undefined;
  switch (type.kind) {
    case 'any':
      return undefined;
    case 'struct': {
      if (!isJsonObject(value)) return `cannot restore struct from: ${unstructuredKind(value)}`;
      for (const [key, child] of Object.entries(type.node.properties ?? {})) {
        if (!Object.hasOwn(value, key)) continue;
        const found = convertUnstructured(value[key], typeOf(child));
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'slice': {
      if (!Array.isArray(value)) return `cannot restore slice from ${unstructuredKind(value)}`;
      const elem = typeOf(type.elem);
      for (const item of value) {
        const found = convertUnstructured(item, elem);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'map': {
      if (!isJsonObject(value)) return `cannot restore map from ${unstructuredKind(value)}`;
      const elem = typeOf(type.elem);
      for (const item of Object.values(value)) {
        const found = convertUnstructured(item, elem);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'bytes':
      return scalarConvertError(value, 'string');
    case 'string':
    case 'bool':
    case 'int32':
    case 'int64':
    case 'float64':
      return scalarConvertError(value, type.kind);
    // Types with their own UnmarshalJSON get the value re-encoded as JSON (no struct context then).
    case 'intorstring':
      if (typeof value === 'string' || (typeof value === 'number' && fitsInt(value, 'int32')))
        return undefined;
      return `json: cannot unmarshal ${typeof value === 'number' ? `number ${String(value)}` : jsonKind(value)} into Go value of type int32`;
    case 'time':
      return typeof value === 'string'
        ? undefined
        : `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
    case 'quantity':
      return quantityOk(value) ? undefined : QUANTITY_FORMAT_ERROR;
  }
}

/** What FromUnstructured says about the strategic-merge-patched object, or undefined. */
export function unstructuredConvertError(
  obj: Record<string, unknown>,
  definitionName: string,
): string | undefined {
  const def = definition(definitionName);
  if (def === undefined) return undefined;
  return convertUnstructured(obj, { kind: 'struct', name: goName(definitionName), node: def });
}

/** Go's `%v` of a value decoded from JSON: `map[spec:map[replicas:3]]`, `[a b]`, `<nil>`. */
export function goFormat(value: unknown, depth = 0): string {
  if (depth > 100) return '...';
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map((v) => goFormat(v, depth + 1)).join(' ')}]`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(value[k], depth + 1)}`).join(' ')}]`;
  }
  if (typeof value === 'number' && !Number.isInteger(value)) {
    return String(value).replace(/e([+-])(\d)$/, 'e$10$2');
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : '';
}
