/** Whether an admission webhook applies to a request: rules, scope, namespace and object selectors. */
import type { ApiServerCore } from '../core.js';
import { isJsonObject, metadataOf, objectAt, type JsonObject } from '../json.js';
import type { ResourceType } from '../resource-type.js';
import type { AdmissionRule, AdmissionWebhook, StoredLabelSelector } from './webhook-configurations.js';

/** What rule matching looks at. */
export interface RuleTarget {
  operation: string;
  type: ResourceType;
  version: string;
  subresource: string;
}

function splitResource(resource: string): [string, string] {
  const slash = resource.indexOf('/');
  return slash < 0 ? [resource, ''] : [resource.slice(0, slash), resource.slice(slash + 1)];
}

/** One rule against one request (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules). */
export function ruleMatches(rule: AdmissionRule, target: RuleTarget, version = target.version): boolean {
  const any = (list: string[], value: string): boolean => list.includes('*') || list.includes(value);
  if (!any(rule.operations, target.operation)) return false;
  if (!any(rule.apiGroups, target.type.group)) return false;
  if (!any(rule.apiVersions, version)) return false;
  if (rule.scope === 'Cluster' && target.type.namespaced) return false;
  if (rule.scope === 'Namespaced' && !target.type.namespaced) return false;
  return rule.resources.some((r) => {
    const [res, sub] = splitResource(r);
    return (res === '*' || res === target.type.resource) && (sub === '*' || sub === target.subresource);
  });
}

/**
 * The version the webhook receives the object in: the request's when a rule names it; with
 * matchPolicy Equivalent, else the first other served version of the same resource a rule names.
 */
export function matchedVersion(hook: AdmissionWebhook, target: RuleTarget): string | undefined {
  if (hook.rules.some((r) => ruleMatches(r, target))) return target.version;
  if (hook.matchPolicy !== 'Equivalent') return undefined;
  for (const v of target.type.versions) {
    if (v.name !== target.version && hook.rules.some((r) => ruleMatches(r, target, v.name))) return v.name;
  }
  return undefined;
}

function labelsOf(obj: JsonObject | undefined): Record<string, string> | undefined {
  if (obj === undefined) return undefined;
  const labels = objectAt(metadataOf(obj), 'labels');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

/** `metav1.LabelSelector` semantics: matchLabels and every expression must hold; `{}` matches all. */
export function selectorMatches(selector: StoredLabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(value ?? '')) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value ?? '')) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

function isEmptySelector(s: StoredLabelSelector): boolean {
  return Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0;
}

/**
 * namespaceSelector: a namespaced object's namespace labels (a Namespace's own labels); cluster-scoped
 * objects always match. objectSelector: the new or the old object's labels; a missing object never
 * matches a non-empty selector.
 */
export function selectorsMatch(
  core: ApiServerCore,
  hook: AdmissionWebhook,
  type: ResourceType,
  namespace: string | undefined,
  object: JsonObject | undefined,
  oldObject: JsonObject | undefined,
): boolean {
  if (!isEmptySelector(hook.namespaceSelector)) {
    let labels: Record<string, string> | undefined;
    if (type.group === '' && type.resource === 'namespaces') labels = labelsOf(object ?? oldObject);
    else if (type.namespaced && namespace !== undefined) {
      const ns = core.store.get('/namespaces', undefined, namespace);
      labels = labelsOf(isJsonObject(ns) ? ns : undefined) ?? {};
    }
    if (labels !== undefined && !selectorMatches(hook.namespaceSelector, labels)) return false;
  }
  if (!isEmptySelector(hook.objectSelector)) {
    const matches = [object, oldObject].some(
      (o) => o !== undefined && selectorMatches(hook.objectSelector, labelsOf(o) ?? {}),
    );
    if (!matches) return false;
  }
  return true;
}
