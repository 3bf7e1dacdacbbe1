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
      return typeof value === 'string' ? undefined : unmarshalError(jsonKind(value), ctx, typeName(type));
    case 'bytes': {
      if (typeof value !== 'string') return unmarshalError(jsonKind(value), ctx, typeName(type));
      const at = base64ErrorOffset(value);
      return at === undefined ? undefined : `illegal base64 data at input byte ${String(at)}`;
    }
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

/**
 * Where Go's base64.StdEncoding stops decoding `text` (the offset a CorruptInputError names), or undefined
 * when it decodes: an invalid character is named where it is, padding where it is wrong, and a final
 * incomplete group of characters at its start. Newlines are skipped.
 */
export function base64ErrorOffset(text: string): number | undefined {
  const valid = (c: string): boolean => /^[A-Za-z0-9+/]$/.test(c);
  const newline = (c: string | undefined): boolean => c === '\n' || c === '\r';
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === text.length) return j === 0 ? undefined : si - j;
      const c = text[si] ?? '';
      si++;
      if (valid(c)) continue;
      if (newline(c)) {
        j--;
        continue;
      }
      if (c !== '=' || j < 2) return si - 1;
      if (j === 2) {
        while (si < text.length && newline(text[si])) si++;
        if (si === text.length) return text.length;
        if (text[si] !== '=') return si - 1;
        si++;
      }
      while (si < text.length && newline(text[si])) si++;
      return si < text.length ? si : undefined;
    }
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
    case 'bytes': {
      const at = typeof value === 'string' ? base64ErrorOffset(value) : undefined;
      if (at !== undefined)
        return `error decoding from json: illegal base64 data at input byte ${String(at)}`;
      return scalarConvertError(value, 'string');
    }
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

const DECIMAL_SUFFIXES = new Map<bigint, string>([
  [-9n, 'n'],
  [-6n, 'u'],
  [-3n, 'm'],
  [0n, ''],
  [3n, 'k'],
  [6n, 'M'],
  [9n, 'G'],
  [12n, 'T'],
  [15n, 'P'],
  [18n, 'E'],
]);
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const NANO = 10n ** 9n;

/**
 * A quantity in the canonical form kube-apiserver stores and returns (Quantity.CanonicalizeBytes,
 * k8s.io/apimachinery/pkg/api/resource/quantity.go): rounded up to nano precision, in the format its
 * suffix chose — decimal SI with an exponent that is a multiple of 3 and an integer mantissa (`1000m` →
 * `1`, `0.5` → `500m`, `1000` → `1k`), a decimal exponent (`1e3`), or binary SI while the value is a whole
 * number of at least 1024 (`1024Mi` → `1Gi`, `1.5Gi` → `1536Mi`; below that, decimal). Undefined when it
 * is not a quantity.
 */
export function canonicalQuantity(raw: string): string | undefined {
  const text = raw.trim();
  // A string already in canonical form is kept as written (ParseQuantity reuses it), a `+` sign included.
  if (text.startsWith('+')) {
    const unsigned = canonicalQuantity(text.slice(1));
    return unsigned === text.slice(1) ? text : unsigned;
  }
  const q = parseQuantity(text);
  if (q === undefined) return undefined;
  let format = /[KMGTPE]i$/.test(text) ? 'binary' : /[eE][+-]?\d+$/.test(text) ? 'exponent' : 'decimal';
  const scaled = q.num * NANO;
  let nano = scaled / q.den;
  if (scaled % q.den !== 0n) nano += q.num < 0n ? -1n : 1n;
  if (nano === 0n) return '0';
  if (format === 'binary') {
    const abs = nano < 0n ? -nano : nano;
    if (abs < 1024n * NANO || nano % NANO !== 0n) format = 'decimal';
    else {
      let amount = nano / NANO;
      let exponent = 0;
      while (exponent < BINARY_SUFFIXES.length - 1 && amount % 1024n === 0n) {
        amount /= 1024n;
        exponent++;
      }
      return `${amount}${BINARY_SUFFIXES[exponent] ?? ''}`;
    }
  }
  let mantissa = nano;
  let exponent = -9n;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const rest = ((exponent % 3n) + 3n) % 3n;
  mantissa *= 10n ** rest;
  exponent -= rest;
  // kube drops a decimal SI exponent its suffix table lacks (constructBytes fails; `3e21` written as
  // `3000000000000000000000` reads back as `3`): reproduced as it is.
  if (format === 'decimal') return `${mantissa}${DECIMAL_SUFFIXES.get(exponent) ?? ''}`;
  return exponent === 0n ? `${mantissa}` : `${mantissa}e${exponent}`;
}

/** Rewrites, in place, every quantity of a built-in object in its canonical form (numbers become strings). */
export function canonicalizeQuantities(obj: Record<string, unknown>, definitionName: string): void {
  const def = definition(definitionName);
  if (def !== undefined) canonicalizeNode(obj, { kind: 'struct', name: '', node: def }, 0);
}

function canonicalizeNode(value: unknown, type: GoType, depth: number): unknown {
  if (value === null || depth > 64) return value;
  switch (type.kind) {
    case 'quantity': {
      if (typeof value !== 'string' && typeof value !== 'number') return value;
      return canonicalQuantity(String(value)) ?? value;
    }
    case 'struct': {
      if (!isJsonObject(value)) return value;
      const properties = type.node.properties ?? {};
      for (const [key, item] of Object.entries(value)) {
        const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
        if (child !== undefined && item !== null && typeof item === 'object') {
          canonicalizeNode(item, typeOf(child), depth + 1);
        } else if (child !== undefined && child.$ref === QUANTITY) {
          value[key] = canonicalizeNode(item, { kind: 'quantity' }, depth + 1);
        }
      }
      return value;
    }
    case 'slice':
    case 'map': {
      const elem = typeOf(type.elem);
      if (Array.isArray(value) && type.kind === 'slice') {
        value.forEach((item, i) => (value[i] = canonicalizeNode(item, elem, depth + 1)));
      } else if (isJsonObject(value) && type.kind === 'map') {
        for (const [key, item] of Object.entries(value)) value[key] = canonicalizeNode(item, elem, depth + 1);
      }
      return value;
    }
    default:
      return value;
  }
}

/**
 * Drops, in place, what a built-in object's Go encoding leaves out: a slice or map field tagged omitempty
 * (every field the OpenAPI does not list as required) that is empty (`labels: {}`, `schedulingGates: []`
 * after the last item is removed), and the zero value of a scalar held by value and tagged omitempty
 * (`minReadySeconds: 0`, `paused: false`; the generator marks them). Empty structs stay (`resources: {}`).
 */
export function dropEmptyOmitted(obj: Record<string, unknown>, definitionName: string): void {
  const def = definition(definitionName);
  if (def !== undefined) dropEmptyNode(obj, { kind: 'struct', name: '', node: def }, 0);
}

function dropEmptyNode(value: unknown, type: GoType, depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 64) return;
  if (type.kind === 'struct' && isJsonObject(value)) {
    const properties = type.node.properties ?? {};
    const required = new Set(type.node.required ?? []);
    for (const [key, item] of Object.entries(value)) {
      const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (child === undefined) continue;
      const childType = typeOf(child);
      const empty = Array.isArray(item)
        ? item.length === 0
        : isJsonObject(item) && Object.keys(item).length === 0;
      const zero = item === 0 || item === '' || item === false;
      if (empty && !required.has(key) && (childType.kind === 'slice' || childType.kind === 'map')) {
        Reflect.deleteProperty(value, key);
      } else if (item === null && !required.has(key) && childType.kind !== 'time') {
        // null decodes to Go's zero value, which omitempty leaves out (a time held by value stays null).
        Reflect.deleteProperty(value, key);
      } else if (zero && child['x-reconcilekit-omit-zero'] === true) {
        Reflect.deleteProperty(value, key);
      } else dropEmptyNode(item, childType, depth + 1);
    }
  } else if (type.kind === 'slice' && Array.isArray(value)) {
    const elem = typeOf(type.elem);
    for (const item of value) dropEmptyNode(item, elem, depth + 1);
  } else if (type.kind === 'map' && isJsonObject(value)) {
    const elem = typeOf(type.elem);
    for (const item of Object.values(value)) dropEmptyNode(item, elem, depth + 1);
  }
}

/**
 * Adds, in place, what a built-in object's Go encoding always writes: a struct field held by value (the
 * OpenAPI gives it `default: {}`) is encoded as `{}` even when nothing is in it (a Deployment's
 * `status: {}`), a time held by value as `null` (a condition's `lastUpdateTime`), at every level under a
 * struct that is itself there.
 */
export function fillValueStructs(obj: Record<string, unknown>, definitionName: string): void {
  const def = definition(definitionName);
  if (def !== undefined) fillNode(obj, { kind: 'struct', name: '', node: def }, 0);
}

function fillNode(value: unknown, type: GoType, depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 64) return;
  if (type.kind === 'struct' && isJsonObject(value)) {
    for (const [key, child] of Object.entries(type.node.properties ?? {})) {
      const childType = typeOf(child);
      const byValue = isJsonObject(child.default) && Object.keys(child.default).length === 0;
      if (value[key] === undefined && byValue && childType.kind === 'struct') value[key] = {};
      // A time held by value (not omitzero) is encoded as null when unset.
      if (value[key] === undefined && child['x-reconcilekit-zero-null'] === true) value[key] = null;
      if (value[key] !== undefined) fillNode(value[key], childType, depth + 1);
    }
  } else if (type.kind === 'slice' && Array.isArray(value)) {
    const elem = typeOf(type.elem);
    for (const item of value) fillNode(item, elem, depth + 1);
  } else if (type.kind === 'map' && isJsonObject(value)) {
    const elem = typeOf(type.elem);
    for (const item of Object.values(value)) fillNode(item, elem, depth + 1);
  }
}

/** Go's `%v` of an unstructured value inside `&{…}` (smd's valueUnstructured). */
export function goValue(value: unknown): string {
  return goFormat(value);
}

/** Go's `%#v` of an unstructured value (`5`, `"x"`, `map[string]interface {}{"a":1}`). */
export function goSharp(value: unknown): string {
  if (value === null) return '<nil>';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSharp).join(', ')}}`;
  if (isJsonObject(value)) {
    const keys = Object.keys(value).sort();
    return `map[string]interface {}{${keys.map((k) => `${JSON.stringify(k)}:${goSharp(value[k])}`).join(', ')}}`;
  }
  return goFormat(value);
}

/** Go's `%T` of an unstructured value. */
export function goTypeOfValue(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

/** How structured-merge-diff names a list item: by its keys, its value (sets) or its index. */
function itemPath(list: Node, item: unknown, index: number): string {
  const listType = list['x-kubernetes-list-type'];
  let keys = listType === 'map' ? (list['x-kubernetes-list-map-keys'] ?? []) : [];
  const strategy = list['x-kubernetes-patch-strategy'] ?? '';
  const mergeKey = list['x-kubernetes-patch-merge-key'];
  if (listType === undefined && strategy.includes('merge') && mergeKey !== undefined) keys = [mergeKey];
  if (keys.length > 0 && isJsonObject(item)) {
    const parts = [...keys].sort().map((k) => `${k}=${JSON.stringify(item[k] ?? null)}`);
    return `[${parts.join(',')}]`;
  }
  if ((listType === 'set' || (listType === undefined && strategy.includes('merge'))) && !isJsonObject(item)) {
    return `[=${JSON.stringify(item)}]`;
  }
  return `[${index}]`;
}

/** structured-merge-diff's check of an applied object against the schema (typed.AsTyped): first error. */
function applyTypeError(value: unknown, node: Node, path: string, depth: number): string | undefined {
  if (value === null || value === undefined || depth > 64) return undefined;
  const type = typeOf(node);
  switch (type.kind) {
    case 'struct':
    case 'map': {
      if (!isJsonObject(value)) return `${path}: expected map, got &{${goValue(value)}}`;
      for (const [key, item] of Object.entries(value)) {
        const child =
          type.kind === 'struct'
            ? Object.hasOwn(type.node.properties ?? {}, key)
              ? type.node.properties?.[key]
              : undefined
            : type.elem;
        if (child === undefined) continue;
        const found = applyTypeError(item, child, `${path}.${key}`, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'slice': {
      if (!Array.isArray(value)) return `${path}: expected list, got &{${goValue(value)}}`;
      const list = node.$ref === undefined ? node : (definition(node.$ref) ?? node);
      for (const [i, item] of value.entries()) {
        const found = applyTypeError(item, type.elem, `${path}${itemPath(list, item, i)}`, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case 'int32':
    case 'int64':
    case 'float64':
      return typeof value === 'number'
        ? undefined
        : `${path}: expected numeric (int or float), got ${goTypeOfValue(value)}`;
    case 'string':
    case 'bytes':
    case 'time':
      return typeof value === 'string'
        ? undefined
        : `${path}: expected string, got &value.valueUnstructured{Value:${goSharp(value)}}`;
    case 'bool':
      return typeof value === 'boolean' ? undefined : `${path}: expected boolean, got &{${goValue(value)}}`;
    default:
      return undefined;
  }
}

/**
 * What server-side apply says about an applied built-in object whose values do not fit the schema
 * (structured-merge-diff's typed conversion, `.spec.replicas: expected numeric (int or float), got
 * string`), or undefined.
 */
export function applyConfigTypeError(
  obj: Record<string, unknown>,
  definitionName: string,
): string | undefined {
  const def = definition(definitionName);
  if (def === undefined) return undefined;
  return applyTypeError(obj, { $ref: definitionName }, '', 0);
}
