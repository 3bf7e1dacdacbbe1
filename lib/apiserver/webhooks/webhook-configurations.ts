/**
 * The admission webhooks the server calls, read from the stored Mutating/ValidatingWebhookConfigurations:
 * configurations in name order, webhooks in their listed order (kube-apiserver's order), with the defaults
 * kube-apiserver stores filled in, and `prepareWebhookConfiguration` which sets those defaults and
 * validates a configuration on create and update with kube's messages.
 */
import type { ApiServerCore } from '../core.js';
import type { FieldCause } from '../field-cause.js';
import { isJsonObject, metadataOf, stringAt, type JsonObject } from '../json.js';
import type { ResourceType } from '../resource-type.js';
import { invalid } from '../status.js';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
const MUTATING_KEY = `${ADMISSION_GROUP}/mutatingwebhookconfigurations`;
const VALIDATING_KEY = `${ADMISSION_GROUP}/validatingwebhookconfigurations`;

/** One rule of a webhook, defaults filled. */
export interface AdmissionRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

/** A label selector as stored (`matchLabels`, `matchExpressions`). */
export interface StoredLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** One webhook of a configuration, defaults filled. */
export interface AdmissionWebhook {
  /** The configuration's name and the webhook's index, for stable identity. */
  configuration: string;
  name: string;
  mutating: boolean;
  clientConfig: JsonObject;
  rules: AdmissionRule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  namespaceSelector: StoredLabelSelector;
  objectSelector: StoredLabelSelector;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  matchConditions: { name: string; expression: string }[];
}

/** True for the two webhook configuration types (never sent to webhooks themselves). */
export function isWebhookConfigurationType(type: { group: string; resource: string }): boolean {
  return (
    type.group === ADMISSION_GROUP &&
    (type.resource === 'mutatingwebhookconfigurations' || type.resource === 'validatingwebhookconfigurations')
  );
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function hooksOf(config: JsonObject, mutating: boolean): AdmissionWebhook[] {
  const configuration = stringAt(metadataOf(config), 'name') ?? '';
  const list = Array.isArray(config.webhooks) ? config.webhooks : [];
  return list.filter(isJsonObject).map((w) => ({
    configuration,
    name: typeof w.name === 'string' ? w.name : '',
    mutating,
    clientConfig: isJsonObject(w.clientConfig) ? w.clientConfig : {},
    rules: (Array.isArray(w.rules) ? w.rules : []).filter(isJsonObject).map((r) => ({
      operations: strings(r.operations),
      apiGroups: strings(r.apiGroups),
      apiVersions: strings(r.apiVersions),
      resources: strings(r.resources),
      scope: typeof r.scope === 'string' ? r.scope : '*',
    })),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: isJsonObject(w.namespaceSelector) ? (w.namespaceSelector as StoredLabelSelector) : {},
    objectSelector: isJsonObject(w.objectSelector) ? (w.objectSelector as StoredLabelSelector) : {},
    sideEffects: typeof w.sideEffects === 'string' ? w.sideEffects : 'Unknown',
    timeoutSeconds: typeof w.timeoutSeconds === 'number' ? w.timeoutSeconds : 10,
    admissionReviewVersions: strings(w.admissionReviewVersions),
    reinvocationPolicy: w.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: (Array.isArray(w.matchConditions) ? w.matchConditions : [])
      .filter(isJsonObject)
      .map((c) => ({ name: String(c.name), expression: String(c.expression) })),
  }));
}

/** The webhooks of one kind, in the order kube-apiserver calls them (configuration name, then list order). */
export function admissionWebhooks(core: ApiServerCore, mutating: boolean): AdmissionWebhook[] {
  const configs = core.store.list(mutating ? MUTATING_KEY : VALIDATING_KEY);
  const sorted = [...configs].sort((a, b) =>
    (stringAt(metadataOf(a), 'name') ?? '').localeCompare(stringAt(metadataOf(b), 'name') ?? ''),
  );
  return sorted.flatMap((c) => hooksOf(c, mutating));
}

/** Whether any webhook configuration is stored at all (the fast path of every write). */
export function anyWebhookConfigured(core: ApiServerCore): boolean {
  return core.store.list(MUTATING_KEY).length > 0 || core.store.list(VALIDATING_KEY).length > 0;
}

const OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const QUALIFIED = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Sets the defaults kube-apiserver stores on a webhook configuration (failurePolicy Fail, matchPolicy
 * Equivalent, empty selectors, timeoutSeconds 10, rule scope `*`, reinvocationPolicy Never, service port
 * 443) and validates it as k8s.io/kubernetes/pkg/apis/admissionregistration/validation does for the
 * fields the server acts on; 422 with kube's field paths and messages.
 */
export function prepareWebhookConfiguration(type: ResourceType, obj: JsonObject): void {
  const mutating = type.resource === 'mutatingwebhookconfigurations';
  const causes: FieldCause[] = [];
  const cause = (field: string, reason: string, message: string): void => {
    causes.push({ reason, message, field });
  };
  const list = Array.isArray(obj.webhooks) ? obj.webhooks : [];
  const names = new Set<string>();
  list.forEach((hook, i) => {
    const at = `webhooks[${i}]`;
    if (!isJsonObject(hook)) return;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= 'Never';
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name === '') cause(`${at}.name`, 'FieldValueRequired', 'Required value');
    else if (!QUALIFIED.test(name) || name.split('.').length < 3) {
      cause(
        `${at}.name`,
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(name)}: should be a domain with at least three segments separated by dots`,
      );
    } else if (names.has(name)) {
      cause(`${at}.name`, 'FieldValueDuplicate', `Duplicate value: ${JSON.stringify(name)}`);
    }
    names.add(name);
    const versions = strings(hook.admissionReviewVersions);
    if (versions.length === 0) {
      cause(
        `${at}.admissionReviewVersions`,
        'FieldValueRequired',
        'Required value: must specify one of v1, v1beta1',
      );
    } else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
      cause(
        `${at}.admissionReviewVersions`,
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(versions)}: must include at least one of v1, v1beta1`,
      );
    }
    const side = hook.sideEffects;
    if (side === undefined || side === null) {
      cause(
        `${at}.sideEffects`,
        'FieldValueRequired',
        'Required value: must specify one of None, NoneOnDryRun',
      );
    } else if (side !== 'None' && side !== 'NoneOnDryRun') {
      cause(
        `${at}.sideEffects`,
        'FieldValueNotSupported',
        `Unsupported value: ${JSON.stringify(side)}: supported values: "None", "NoneOnDryRun"`,
      );
    }
    if (hook.failurePolicy !== 'Fail' && hook.failurePolicy !== 'Ignore') {
      cause(
        `${at}.failurePolicy`,
        'FieldValueNotSupported',
        `Unsupported value: ${JSON.stringify(hook.failurePolicy)}: supported values: "Fail", "Ignore"`,
      );
    }
    if (hook.matchPolicy !== 'Exact' && hook.matchPolicy !== 'Equivalent') {
      cause(
        `${at}.matchPolicy`,
        'FieldValueNotSupported',
        `Unsupported value: ${JSON.stringify(hook.matchPolicy)}: supported values: "Equivalent", "Exact"`,
      );
    }
    const timeout = hook.timeoutSeconds;
    if (typeof timeout !== 'number' || timeout < 1 || timeout > 30) {
      cause(
        `${at}.timeoutSeconds`,
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(timeout)}: the timeout value must be between 1 and 30 seconds`,
      );
    }
    const client = isJsonObject(hook.clientConfig) ? hook.clientConfig : {};
    hook.clientConfig = client;
    const url = client.url;
    const service = client.service;
    if ((url === undefined) === (service === undefined)) {
      cause(
        `${at}.clientConfig`,
        'FieldValueRequired',
        'Required value: exactly one of url or service is required',
      );
    } else if (typeof url === 'string') {
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        cause(
          `${at}.clientConfig.url`,
          'FieldValueInvalid',
          `Invalid value: ${JSON.stringify(url)}: host must be specified`,
        );
      }
      if (parsed !== undefined && parsed.protocol !== 'https:') {
        cause(
          `${at}.clientConfig.url`,
          'FieldValueInvalid',
          `Invalid value: ${JSON.stringify(parsed.protocol.replace(':', ''))}: 'https' is the only allowed URL scheme`,
        );
      }
    } else if (isJsonObject(service)) {
      service.port ??= 443;
    }
    const rules = Array.isArray(hook.rules) ? hook.rules : [];
    rules.forEach((rule, j) => {
      if (!isJsonObject(rule)) return;
      rule.scope ??= '*';
      const ops = strings(rule.operations);
      for (const op of ops) {
        if (!OPERATIONS.includes(op)) {
          cause(
            `${at}.rules[${j}].operations`,
            'FieldValueNotSupported',
            `Unsupported value: ${JSON.stringify(op)}: supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`,
          );
        }
      }
      for (const field of ['apiGroups', 'apiVersions', 'resources', 'operations']) {
        if (strings(rule[field]).length === 0) {
          cause(`${at}.rules[${j}].${field}`, 'FieldValueRequired', 'Required value');
        }
      }
    });
  });
  if (causes.length > 0) throw invalid(type, stringAt(metadataOf(obj), 'name') ?? '', causes);
}
