import type { CelRule, CrdSchema } from './crd-types.js';

/**
 * A problem found while turning a JSON Schema into a CRD schema: `field` is the path inside the schema
 * (`ports.items.name`, '' for the schema itself), `detail` what to change.
 */
export interface SchemaProblem {
  field: string;
  detail: string;
}

/** Keywords copied as they are (their values are checked by the API server's own CRD validation). */
const COPIED = [
  'description',
  'title',
  'format',
  'default',
  'example',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
] as const;

/** Keywords handled by dedicated code below (or accepted and dropped: JSON Schema annotations only). */
const HANDLED = new Set<string>([
  ...COPIED,
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'patternProperties',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'uniqueItems',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
  'examples',
  '$comment',
]);

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
/** The patterns TypeBox gives `Type.Record(Type.String(), V)`: any key. */
const ANY_KEY_PATTERNS = new Set(['^.*$', '^(.*)$', '.*']);
/** Reasons a CEL rule may name. */
const RULE_REASONS = new Set([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Turns a JSON Schema written with TypeBox (or by hand) into the structural OpenAPI v3 schema a CRD needs,
 * and reports every construct kube-apiserver would refuse, with the path and the fix: untyped nodes
 * (`Type.Unknown()`, `Type.Any()`), unions other than literals, `T | null` and integer-or-string, `allOf`,
 * `$ref`, tuples, `additionalProperties: false`, `uniqueItems`, patterned records, list-map keys that are
 * not required scalars. Translations: `const` and unions of literals → `enum`; `T | null` → `nullable`;
 * `integer | string` → `x-kubernetes-int-or-string`; `Type.Record(Type.String(), V)` →
 * `additionalProperties`; numeric `exclusiveMinimum` → `minimum` + `exclusiveMinimum: true`.
 * Returns the schema and the problems (the schema is only meaningful when there are none).
 */
export function toStructuralSchema(
  schema: unknown,
  path = '',
): { schema: CrdSchema; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const out = convert(schema, path, problems, 0);
  return { schema: out, problems };
}

/** Deeper than this is refused: a CRD schema that deep is a generator gone wrong (or a cycle). */
const MAX_DEPTH = 64;

function convert(node: unknown, path: string, problems: SchemaProblem[], depth: number): CrdSchema {
  const fail = (detail: string, field = path): CrdSchema => {
    problems.push({ field, detail });
    return {};
  };
  if (depth > MAX_DEPTH) return fail(`nested deeper than ${MAX_DEPTH} levels (is the schema recursive?)`);
  if (!isObject(node)) return fail(`must be a schema object, got ${jsonType(node)}`);
  if (node.$ref !== undefined || node.$id !== undefined || node.$defs !== undefined) {
    return fail(
      'references ($ref, $id, $defs, Type.Ref, Type.Cyclic) are not allowed in a CRD schema: inline the schema',
    );
  }
  if (node.allOf !== undefined) {
    return fail(
      'allOf (Type.Intersect) is not structural: merge the objects with Type.Evaluate(Type.Intersect([...]))',
    );
  }
  if (node.not !== undefined) return fail('not (Type.Not) is not supported in a CRD schema');
  if (Array.isArray(node.items) || node.prefixItems !== undefined) {
    return fail('tuples (Type.Tuple) are not structural: use an array of one item type', at(path, 'items'));
  }
  for (const key of Object.keys(node)) {
    if (!HANDLED.has(key)) {
      problems.push({
        field: at(path, key),
        detail: `keyword "${key}" is not part of a CRD's OpenAPI v3 schema: remove it`,
      });
    }
  }
  const union = node.anyOf ?? node.oneOf;
  if (union !== undefined) return convertUnion(node, union, path, problems, depth);

  const out: CrdSchema = {};
  for (const key of COPIED) if (node[key] !== undefined) (out as Json)[key] = node[key];

  let type = node.type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null');
    if (types.length === 1 && type.length === 2) {
      out.nullable = true;
      type = types[0];
    } else return fail(`a list of types (${type.join(', ')}) is not structural: one type per field`);
  }
  if (node.const !== undefined) out.enum = [node.const];
  else if (Array.isArray(node.enum)) out.enum = [...(node.enum as unknown[])];
  if (type === undefined && out.enum !== undefined) type = enumType(out.enum);
  if (node['x-kubernetes-int-or-string'] === true) {
    out['x-kubernetes-int-or-string'] = true;
    if (type !== undefined) return fail('x-kubernetes-int-or-string must not have a type');
  } else if (type === undefined) {
    if (out['x-kubernetes-preserve-unknown-fields'] !== true) {
      return fail(
        'has no type, so the schema is not structural (Type.Unknown() and Type.Any() are untyped): give it a type, ' +
          'or use KubeType.PreserveUnknownFields() / KubeType.IntOrString()',
      );
    }
  } else if (typeof type !== 'string' || !TYPES.has(type)) {
    return fail(`type ${JSON.stringify(type)} is not supported: use one of ${[...TYPES].join(', ')}`);
  } else out.type = type;

  copyExclusive(node, out, 'exclusiveMinimum', 'minimum', path, problems);
  copyExclusive(node, out, 'exclusiveMaximum', 'maximum', path, problems);
  if (node.uniqueItems === true) {
    problems.push({
      field: at(path, 'uniqueItems'),
      detail:
        'uniqueItems is not allowed (quadratic to check): use KubeType.ListSet(items) (x-kubernetes-list-type: set)',
    });
  }
  if (out.type === 'object' || node.properties !== undefined) convertObject(node, out, path, problems, depth);
  else if (node.additionalProperties !== undefined || node.patternProperties !== undefined) {
    problems.push({ field: path, detail: 'additionalProperties or patternProperties need type: object' });
  }
  if (out.type === 'array') convertArray(node, out, path, problems, depth);
  else if (node.items !== undefined)
    problems.push({ field: at(path, 'items'), detail: 'items need type: array' });
  if (node['x-kubernetes-validations'] !== undefined) {
    out['x-kubernetes-validations'] = celRules(
      node['x-kubernetes-validations'],
      at(path, 'x-kubernetes-validations'),
      problems,
    );
  }
  return out;
}

function enumType(values: unknown[]): string | undefined {
  const types = new Set(values.map(jsonType).map((t) => (t === 'integer' ? 'number' : t)));
  if (types.size !== 1) return undefined;
  const [only] = types;
  if (only === 'number') return values.every((v) => Number.isInteger(v)) ? 'integer' : 'number';
  return only;
}

function copyExclusive(
  node: Json,
  out: CrdSchema,
  key: 'exclusiveMinimum' | 'exclusiveMaximum',
  bound: 'minimum' | 'maximum',
  path: string,
  problems: SchemaProblem[],
): void {
  const value = node[key];
  if (value === undefined) return;
  if (typeof value === 'boolean') out[key] = value;
  else if (typeof value === 'number') {
    // JSON Schema 2020-12 (TypeBox) writes the bound itself; OpenAPI v3.0 a flag beside minimum/maximum.
    if (node[bound] !== undefined) {
      problems.push({ field: at(path, key), detail: `give either ${bound} or ${key}, not both` });
      return;
    }
    out[bound] = value;
    out[key] = true;
  } else problems.push({ field: at(path, key), detail: 'must be a number or a boolean' });
}

function convertUnion(
  node: Json,
  union: unknown,
  path: string,
  problems: SchemaProblem[],
  depth: number,
): CrdSchema {
  if (!Array.isArray(union) || union.length === 0 || !union.every(isObject)) {
    problems.push({ field: path, detail: 'anyOf/oneOf must be a non-empty list of schemas' });
    return {};
  }
  const branches = union;
  const outer: CrdSchema = {};
  for (const key of ['description', 'title', 'default', 'example'] as const) {
    if (node[key] !== undefined) (outer as Json)[key] = node[key];
  }
  // Literals: Type.Union([Type.Literal('a'), Type.Literal('b')]) → enum.
  if (branches.every((b) => b.const !== undefined || Array.isArray(b.enum))) {
    const values = branches.flatMap((b) => (b.const !== undefined ? [b.const] : (b.enum as unknown[])));
    const type = enumType(values);
    if (type === undefined) {
      problems.push({ field: path, detail: 'an enum must hold values of one type (strings, or numbers)' });
      return {};
    }
    return { type, enum: values, ...outer };
  }
  // T | null → nullable T.
  const nonNull = branches.filter((b) => b.type !== 'null');
  if (nonNull.length === 1 && branches.length === 2) {
    return { ...convert(nonNull[0], path, problems, depth + 1), ...outer, nullable: true };
  }
  // integer | string → x-kubernetes-int-or-string (Kubernetes' IntOrString, e.g. a port or a percentage).
  const types = branches.map((b) => b.type).sort();
  if (branches.length === 2 && types[0] === 'integer' && types[1] === 'string') {
    return { ...outer, 'x-kubernetes-int-or-string': true };
  }
  problems.push({
    field: path,
    detail:
      'a union of schemas is not structural (kube needs one type per field): use literals (an enum), ' +
      'Type.Union([T, Type.Null()]) for a nullable field, KubeType.IntOrString(), or one object with optional fields',
  });
  return {};
}

function convertObject(
  node: Json,
  out: CrdSchema,
  path: string,
  problems: SchemaProblem[],
  depth: number,
): void {
  const properties = node.properties;
  if (properties !== undefined) {
    if (!isObject(properties)) problems.push({ field: at(path, 'properties'), detail: 'must be an object' });
    else {
      out.properties = {};
      for (const [key, child] of Object.entries(properties)) {
        out.properties[key] = convert(child, at(path, key), problems, depth + 1);
      }
    }
  }
  if (node.required !== undefined) {
    const required = node.required;
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) {
      problems.push({ field: at(path, 'required'), detail: 'must be a list of property names' });
    } else if (required.length > 0) {
      for (const name of required) {
        if (out.properties?.[name] === undefined) {
          problems.push({ field: at(path, 'required'), detail: `names "${name}", which is not a property` });
        }
      }
      out.required = [...required];
    }
  }
  let additional = node.additionalProperties;
  const patterns = node.patternProperties;
  if (patterns !== undefined) {
    const entries = isObject(patterns) ? Object.entries(patterns) : [];
    const [first] = entries;
    if (entries.length !== 1 || first === undefined || !ANY_KEY_PATTERNS.has(first[0])) {
      problems.push({
        field: at(path, 'patternProperties'),
        detail:
          'patterned keys are not supported: use Type.Record(Type.String(), V) (any key) and a CEL rule on the keys',
      });
      return;
    }
    if (additional !== undefined && additional !== true) {
      problems.push({
        field: at(path, 'additionalProperties'),
        detail: 'give a record or additionalProperties, not both',
      });
      return;
    }
    additional = first[1];
  }
  if (additional === undefined) return;
  if (additional === false) {
    problems.push({
      field: at(path, 'additionalProperties'),
      detail:
        'additionalProperties: false is not allowed in a CRD schema (the API server prunes unknown fields): remove it',
    });
  } else if (additional === true) {
    if (out['x-kubernetes-preserve-unknown-fields'] !== true && out.properties === undefined)
      out.additionalProperties = true;
  } else if (out.properties !== undefined) {
    problems.push({
      field: at(path, 'additionalProperties'),
      detail:
        'properties and additionalProperties are mutually exclusive: use one object with named properties, or a record',
    });
  } else
    out.additionalProperties = convert(additional, at(path, 'additionalProperties'), problems, depth + 1);
}

function convertArray(
  node: Json,
  out: CrdSchema,
  path: string,
  problems: SchemaProblem[],
  depth: number,
): void {
  const items = node.items;
  if (items === undefined) {
    problems.push({ field: at(path, 'items'), detail: 'an array needs an item schema' });
    return;
  }
  const itemSchema = convert(items, at(path, 'items'), problems, depth + 1);
  out.items = itemSchema;
  const keys = node['x-kubernetes-list-map-keys'];
  const listType = node['x-kubernetes-list-type'];
  if (keys === undefined) {
    if (listType === 'map') {
      problems.push({
        field: at(path, 'x-kubernetes-list-map-keys'),
        detail: 'a list-map needs its keys (KubeType.ListMap(items, [key]))',
      });
    }
    return;
  }
  if (listType !== 'map') {
    problems.push({
      field: at(path, 'x-kubernetes-list-map-keys'),
      detail: 'only allowed with x-kubernetes-list-type: map',
    });
    return;
  }
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    problems.push({
      field: at(path, 'x-kubernetes-list-map-keys'),
      detail: 'must be a non-empty list of property names',
    });
    return;
  }
  if (itemSchema.type !== 'object') {
    problems.push({
      field: at(path, 'items'),
      detail: 'a list-map holds objects: its items need type: object',
    });
    return;
  }
  for (const key of keys) {
    const keySchema = itemSchema.properties?.[key];
    const field = at(path, `items.${key}`);
    if (keySchema === undefined) {
      problems.push({
        field: at(path, 'x-kubernetes-list-map-keys'),
        detail: `key "${key}" is not a property of the items`,
      });
    } else if (keySchema.type === 'object' || keySchema.type === 'array' || keySchema.type === undefined) {
      problems.push({
        field,
        detail: 'a list-map key must be a scalar (string, integer, number or boolean)',
      });
    } else if (itemSchema.required?.includes(key) !== true && keySchema.default === undefined) {
      problems.push({
        field,
        detail: 'a list-map key must be required or have a default, so every item has it',
      });
    }
  }
  out['x-kubernetes-list-map-keys'] = [...keys];
}

/** Checks the shape of CEL rules (their expressions are compiled by the API server's checks). */
export function celRules(raw: unknown, path: string, problems: SchemaProblem[]): CelRule[] {
  if (!Array.isArray(raw)) {
    problems.push({ field: path, detail: 'must be a list of { rule, message? }' });
    return [];
  }
  return raw.map((entry, i) => {
    const field = `${path}[${String(i)}]`;
    if (!isObject(entry) || typeof entry.rule !== 'string' || entry.rule.trim() === '') {
      problems.push({ field, detail: 'needs a non-empty rule (a CEL expression)' });
      return { rule: '' };
    }
    const rule: CelRule = { rule: entry.rule };
    for (const key of ['message', 'messageExpression', 'fieldPath'] as const) {
      const value = entry[key];
      if (value === undefined) continue;
      if (typeof value !== 'string') problems.push({ field: `${field}.${key}`, detail: 'must be a string' });
      else rule[key] = value;
    }
    if (entry.reason !== undefined) {
      if (typeof entry.reason !== 'string' || !RULE_REASONS.has(entry.reason)) {
        problems.push({ field: `${field}.reason`, detail: `must be one of ${[...RULE_REASONS].join(', ')}` });
      } else rule.reason = entry.reason;
    }
    if (entry.optionalOldSelf === true) rule.optionalOldSelf = true;
    for (const key of Object.keys(entry)) {
      if (!['rule', 'message', 'messageExpression', 'fieldPath', 'reason', 'optionalOldSelf'].includes(key)) {
        problems.push({ field: `${field}.${key}`, detail: `unknown field "${key}"` });
      }
    }
    return rule;
  });
}
