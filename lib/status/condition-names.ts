import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * metav1.Condition's limit on `type` (a qualified name: DNS-subdomain prefix ≤ 253, `/`, name ≤ 63).
 * @category Engine: Framework and ControllerCore
 */
export const MAX_CONDITION_TYPE_LENGTH = 316;
/**
 * metav1.Condition's limit on `reason`.
 * @category Engine: Framework and ControllerCore
 */
export const MAX_CONDITION_REASON_LENGTH = 1024;
/**
 * metav1.Condition's limit on `message`.
 * @category Engine: Framework and ControllerCore
 */
export const MAX_CONDITION_MESSAGE_LENGTH = 32_768;

const TYPE_PATTERN =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * Throws {@link InvalidConfigError} unless `type` is a condition type the API server accepts (the
 * `metav1.Condition` rules: a qualified name such as `Ready` or `example.com/Synced`, ≤ 316 characters).
 * Checked up front so a bad type fails at bind time, not as a 422 halfway through a guarded task.
 * @category Engine: Framework and ControllerCore
 */
export function validateConditionType(type: unknown, what = 'conditionType'): asserts type is string {
  if (typeof type !== 'string' || type === '') {
    throw new InvalidConfigError(`${what} must be a non-empty string (e.g. 'Ready')`);
  }
  const name = type.includes('/') ? type.slice(type.lastIndexOf('/') + 1) : type;
  const prefix = type.includes('/') ? type.slice(0, type.lastIndexOf('/')) : '';
  if (
    type.length > MAX_CONDITION_TYPE_LENGTH ||
    name.length > 63 ||
    prefix.length > 253 ||
    !TYPE_PATTERN.test(type)
  ) {
    throw new InvalidConfigError(
      `${what} '${type.length > 80 ? `${type.slice(0, 80)}…` : type}' is not a valid condition type: ` +
        'use a CamelCase name of letters, digits, -, _ or . (≤ 63 characters), optionally prefixed by a DNS subdomain and / (e.g. Ready, example.com/Synced)',
    );
  }
}

/**
 * Whether `reason` is a valid condition reason (CamelCase-ish: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`, ≤ 1024).
 * @category Engine: Framework and ControllerCore
 */
export function isValidConditionReason(reason: unknown): reason is string {
  return (
    typeof reason === 'string' && reason.length <= MAX_CONDITION_REASON_LENGTH && REASON_PATTERN.test(reason)
  );
}

/**
 * `reason` made acceptable to the API server: words joined in CamelCase (`'in progress'` → `InProgress`),
 * other characters dropped, cut to 1024 characters; `fallback` when nothing valid remains. A valid reason is
 * returned unchanged. Used for reasons that come from user code at a point where failing would leave a
 * lock behind (a guarded task's result).
 * @category Engine: Framework and ControllerCore
 */
export function boundConditionReason(reason: unknown, fallback = 'Unknown'): string {
  if (isValidConditionReason(reason)) return reason;
  const text = typeof reason === 'string' ? reason : '';
  const words = text.split(/[^A-Za-z0-9_,:]+/).filter((w) => w !== '');
  let joined = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  joined = joined.replace(/^[^A-Za-z]+/, '').slice(0, MAX_CONDITION_REASON_LENGTH);
  joined = joined.replace(/[,:]+$/, '');
  return REASON_PATTERN.test(joined) ? joined : fallback;
}

/**
 * `message` cut to the API's 32 768 characters (with a marker), so a long error never fails the write.
 * @category Engine: Framework and ControllerCore
 */
export function boundConditionMessage(message: unknown): string {
  const text =
    typeof message === 'string'
      ? message
      : message === undefined || message === null
        ? ''
        : ((JSON.stringify(message) as string | undefined) ?? '');
  if (text.length <= MAX_CONDITION_MESSAGE_LENGTH) return text;
  return `${text.slice(0, MAX_CONDITION_MESSAGE_LENGTH - 15)}… (truncated)`;
}
