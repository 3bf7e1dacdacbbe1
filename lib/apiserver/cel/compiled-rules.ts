import type { FieldCause } from '../field-cause.js';
import { isJsonObject } from '../patch/json-value.js';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.js';
import { fieldError } from '../validation/field-errors.js';
import { compileCel, type CelProgram } from './cel-program.js';

export const RULE_REASONS = [
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
];

/** A rule ready to run, or the reason it cannot (a stored CRD that never passed creation checks). */
export interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  message?: CelProgram;
  error?: string;
  /** The messageExpression does not compile (the rule itself may). */
  messageError?: string;
}

const cache = new WeakMap<object, CompiledRule[]>();

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Rule objects of a schema node's x-kubernetes-validations (malformed entries skipped). */
export function rulesOf(schema: JSONSchemaProps): ValidationRule[] {
  const raw: unknown = schema['x-kubernetes-validations'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(isJsonObject).map((r) => {
    const rule: ValidationRule = { rule: text(r.rule) ?? '' };
    const message = text(r.message);
    if (message !== undefined) rule.message = message;
    const messageExpression = text(r.messageExpression);
    if (messageExpression !== undefined) rule.messageExpression = messageExpression;
    const reason = text(r.reason);
    if (reason !== undefined) rule.reason = reason;
    const fieldPath = text(r.fieldPath);
    if (fieldPath !== undefined) rule.fieldPath = fieldPath;
    if (r.optionalOldSelf === true) rule.optionalOldSelf = true;
    return rule;
  });
}

/** The compiled rules of a schema node (cached per node). */
export function compiledRulesOf(schema: JSONSchemaProps): CompiledRule[] {
  const cached = cache.get(schema);
  if (cached) return cached;
  const compiled = rulesOf(schema).map((rule) => {
    const result: CompiledRule = { rule };
    try {
      result.program = compileCel(rule.rule, 'bool', rule.optionalOldSelf === true);
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
    }
    if (rule.messageExpression !== undefined) {
      try {
        result.message = compileCel(rule.messageExpression, 'string', rule.optionalOldSelf === true);
      } catch (err) {
        result.messageError = err instanceof Error ? err.message : String(err);
      }
    }
    return result;
  });
  cache.set(schema, compiled);
  return compiled;
}

/** Go's %#v of an apiextensions.ValidationRule, as kube prints it in CRD compile errors. */
function goRule(rule: ValidationRule): string {
  const ptr = (v: string | undefined, type: string): string =>
    v === undefined ? `(*${type})(nil)` : `"${v}"`;
  return (
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule.rule)}, Message:${JSON.stringify(rule.message ?? '')}, ` +
    `MessageExpression:${JSON.stringify(rule.messageExpression ?? '')}, Reason:${ptr(rule.reason, 'apiextensions.FieldValueErrorReason')}, ` +
    `FieldPath:${JSON.stringify(rule.fieldPath ?? '')}, OptionalOldSelf:${rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(true)`}}`
  );
}

/**
 * CRD-creation checks of every x-kubernetes-validations rule under `schema` (kube:
 * k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go): the rule and its
 * messageExpression compile, reason is a known one, oldSelf is only used where a transition is
 * possible. `path` is the schema's field path (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function validateSchemaRules(schema: unknown, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  const visit = (node: unknown, at: string): void => {
    if (!isJsonObject(node)) return;
    const raw = node['x-kubernetes-validations'];
    if (Array.isArray(raw)) {
      const compiled = compiledRulesOf(node);
      compiled.forEach(({ rule, error, messageError }, i) => {
        const rulePath = `${at}.x-kubernetes-validations[${i}]`;
        if (rule.rule.trim() === '') {
          causes.push(fieldError.required(`${rulePath}.rule`, 'rule is not specified'));
          return;
        }
        if (rule.reason !== undefined && !RULE_REASONS.includes(rule.reason)) {
          causes.push(fieldError.notSupported(`${rulePath}.reason`, rule.reason, RULE_REASONS));
        }
        if (error !== undefined) {
          causes.push({
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${goRule(rule)}: compilation failed: ${error}`,
            field: `${rulePath}.rule`,
          });
        } else if (rule.optionalOldSelf === true && compiled[i]?.program?.usesOldSelf !== true) {
          causes.push(
            fieldError.invalid(
              `${rulePath}.optionalOldSelf`,
              true,
              'may not be set if oldSelf is not used in rule',
            ),
          );
        }
        if (messageError !== undefined) {
          causes.push({
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${goRule(rule)}: messageExpression compilation failed: ${messageError}`,
            field: `${rulePath}.messageExpression`,
          });
        }
      });
    }
    if (isJsonObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) visit(child, `${at}.properties[${key}]`);
    }
    if (isJsonObject(node.items)) visit(node.items, `${at}.items`);
    if (isJsonObject(node.additionalProperties))
      visit(node.additionalProperties, `${at}.additionalProperties`);
  };
  visit(schema, path);
  return causes;
}
