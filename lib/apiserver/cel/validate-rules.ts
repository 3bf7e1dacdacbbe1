import { Optional } from '@marcbachmann/cel-js';
import type { FieldCause } from '../field-cause.js';
import { isJsonObject, jsonEqual } from '../patch/json-value.js';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.js';
import { propertySchema } from '../schema/property-schema.js';
import { fieldError } from '../validation/field-errors.js';
import {
  CostMeter,
  DEFAULT_CEL_PER_CALL_COST_LIMIT,
  DEFAULT_CEL_RUNTIME_COST_BUDGET,
  evaluationErrorText,
  isCelCostLimitError,
  type CelProgram,
} from './cel-program.js';
import { compiledRulesOf, type CompiledRule } from './compiled-rules.js';
import { toCelValue } from './cel-value.js';

/** Longest evaluated messageExpression (kube: MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;

class OutOfBudget extends Error {}

interface Walk {
  causes: FieldCause[];
  remaining: number;
}

/** Whether any node of the schema carries x-kubernetes-validations (cached per schema). */
const hasRulesCache = new WeakMap<object, boolean>();
export function schemaHasRules(schema: JSONSchemaProps): boolean {
  const cached = hasRulesCache.get(schema);
  if (cached !== undefined) return cached;
  const found =
    (Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0) ||
    Object.values(schema.properties ?? {}).some((p) => isJsonObject(p) && schemaHasRules(p)) ||
    (isJsonObject(schema.items) && schemaHasRules(schema.items)) ||
    (isJsonObject(schema.additionalProperties) && schemaHasRules(schema.additionalProperties));
  hasRulesCache.set(schema, found);
  return found;
}

/**
 * Evaluates every x-kubernetes-validations rule of `schema` against `obj` (and `old` on update), as
 * kube-apiserver does (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go): rules run
 * on present, non-null values; transition rules (using oldSelf) only where the old value correlates
 * (same property, same map key, same list-map item) unless optionalOldSelf; rules without oldSelf whose
 * value did not change are skipped on update (validation ratcheting). Returns one cause per failure; a
 * rule past the per-call cost limit or the object's budget stops all further rules.
 */
export function validateCelRules(
  obj: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  schema: JSONSchemaProps,
  budget = DEFAULT_CEL_RUNTIME_COST_BUDGET,
): FieldCause[] {
  const walk: Walk = { causes: [], remaining: budget };
  if (!schemaHasRules(schema)) return [];
  try {
    visit(obj, old, old !== undefined, schema, '', walk, true);
  } catch (err) {
    if (!(err instanceof OutOfBudget)) throw err;
  }
  return walk.causes;
}

function visit(
  value: unknown,
  old: unknown,
  correlated: boolean,
  schema: JSONSchemaProps,
  path: string,
  walk: Walk,
  root = false,
): void {
  if (value === null || value === undefined) return;
  if (!schemaHasRules(schema)) return;
  const rules = compiledRulesOf(schema);
  if (rules.length > 0) runRules(value, old, correlated, schema, rules, path, walk, root);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isJsonObject(items)) return;
    const keys =
      schema['x-kubernetes-list-type'] === 'map' ? (schema['x-kubernetes-list-map-keys'] ?? []) : [];
    const oldList = correlated && Array.isArray(old) ? old : undefined;
    value.forEach((item, i) => {
      let oldItem: unknown;
      if (oldList !== undefined && keys.length > 0 && isJsonObject(item)) {
        oldItem = oldList.find((o) => isJsonObject(o) && keys.every((k) => jsonEqual(o[k], item[k])));
      }
      visit(item, oldItem, oldItem !== undefined, items, `${path}[${i}]`, walk);
    });
    return;
  }
  if (!isJsonObject(value)) return;
  const oldMap = correlated && isJsonObject(old) ? old : undefined;
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, child] of Object.entries(value)) {
    if (root && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
    const childSchema = propertySchema(schema, key) ?? additional;
    if (childSchema === undefined) continue;
    const childPath = propertySchema(schema, key) !== undefined ? join(path, key) : `${path}[${key}]`;
    const oldChild = oldMap !== undefined && Object.hasOwn(oldMap, key) ? oldMap[key] : undefined;
    visit(child, oldChild, oldChild !== undefined, childSchema, childPath, walk);
  }
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function run(program: CelProgram, vars: Record<string, unknown>, walk: Walk): unknown {
  const meter = new CostMeter(Math.min(DEFAULT_CEL_PER_CALL_COST_LIMIT, walk.remaining));
  try {
    return program.run(vars, meter);
  } finally {
    walk.remaining -= meter.spent;
  }
}

function runRules(
  value: unknown,
  old: unknown,
  correlated: boolean,
  schema: JSONSchemaProps,
  rules: CompiledRule[],
  path: string,
  walk: Walk,
  root: boolean,
): void {
  const typeName = schema.type ?? '';
  if (walk.remaining <= 0) {
    walk.causes.push(
      fieldError.invalid(
        path,
        typeName,
        'validation failed due to running out of cost budget, no further validation rules will be run',
      ),
    );
    throw new OutOfBudget();
  }
  const unchanged = correlated && jsonEqual(value, old);
  let self: unknown;
  let oldSelf: unknown;
  for (const compiled of rules) {
    const { rule, program, error } = compiled;
    if (error !== undefined) {
      walk.causes.push(fieldError.invalid(path, typeName, `rule compile error: ${error}`));
      continue;
    }
    if (program === undefined) continue;
    if (program.usesOldSelf && !correlated && rule.optionalOldSelf !== true) continue;
    if (!program.usesOldSelf && unchanged) continue; // ratcheting: an unchanged value keeps passing
    self ??= toCelValue(value, schema, root);
    const vars: Record<string, unknown> = { self };
    if (program.usesOldSelf) {
      if (correlated) oldSelf ??= toCelValue(old, schema, root);
      vars.oldSelf =
        rule.optionalOldSelf === true ? (correlated ? Optional.of(oldSelf) : Optional.none()) : oldSelf;
    }
    let result: unknown;
    try {
      result = run(program, vars, walk);
    } catch (err) {
      if (isCelCostLimitError(err)) {
        const detail =
          walk.remaining <= 0
            ? 'validation failed due to running out of cost budget, no further validation rules will be run'
            : `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`;
        walk.causes.push(fieldError.invalid(path, typeName, detail));
        throw new OutOfBudget();
      }
      walk.causes.push(
        fieldError.invalid(path, typeName, `${evaluationErrorText(err)} evaluating rule: ${ruleText(rule)}`),
      );
      continue;
    }
    if (result === true) continue;
    walk.causes.push(failure(rule, compiled.message, vars, path, typeName, walk));
  }
}

function ruleText(rule: ValidationRule): string {
  return (rule.message ?? '').trim() !== '' ? (rule.message ?? '').trim() : rule.rule.trim();
}

function messageOf(
  rule: ValidationRule,
  message: CelProgram | undefined,
  vars: Record<string, unknown>,
  walk: Walk,
): string {
  const fallback =
    (rule.message ?? '').trim() !== '' ? (rule.message ?? '').trim() : `failed rule: ${rule.rule.trim()}`;
  if (message === undefined) return fallback;
  try {
    const text = run(message, vars, walk);
    if (typeof text !== 'string') return fallback;
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.includes('\n') || Buffer.byteLength(trimmed) > MAX_MESSAGE_BYTES)
      return fallback;
    return trimmed;
  } catch (err) {
    if (isCelCostLimitError(err)) throw err;
    return fallback;
  }
}

function failure(
  rule: ValidationRule,
  message: CelProgram | undefined,
  vars: Record<string, unknown>,
  path: string,
  typeName: string,
  walk: Walk,
): FieldCause {
  const detail = messageOf(rule, message, vars, walk);
  const field = rule.fieldPath ? appendFieldPath(path, rule.fieldPath) : path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldError.forbidden(field, detail);
    case 'FieldValueRequired':
      return fieldError.required(field, detail);
    case 'FieldValueDuplicate':
      return fieldError.duplicate(field, detail);
    default:
      return fieldError.invalid(field, typeName, detail);
  }
}

/** `spec` + `.a['b.c']` → `spec.a[b.c]` (kube renders map keys in brackets without quotes). */
function appendFieldPath(path: string, fieldPath: string): string {
  let out = path;
  const tokens = fieldPath.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g) ?? [];
  for (const token of tokens) {
    if (token.startsWith('.')) out = join(out, token.slice(1));
    else out = `${out}[${token.slice(2, -2).replace(/\\(.)/g, '$1')}]`;
  }
  return out;
}
