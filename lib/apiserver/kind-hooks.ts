import { validateCustomResourceDefinition } from './algorithms.js';
import type { ApiServerCore } from './core.js';
import { crdStatus, crdToType, defaultCrdSpec } from './crd-types.js';
import { metadataOf, objectAt, stringAt, stringsAt, type JsonObject } from './json.js';
import { typeKey, type ResourceType } from './resource-type.js';
import { normalizeTimeFields } from './time-fields.js';
import { badRequest, invalid } from './status.js';
import { checkBuiltIn } from './builtin/built-in-rules.js';
import {
  isWebhookConfigurationType,
  prepareWebhookConfiguration,
} from './webhooks/webhook-configurations.js';

export function isCrdType(type: ResourceType): boolean {
  return type.group === 'apiextensions.k8s.io' && type.resource === 'customresourcedefinitions';
}

export function isNamespaceType(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'namespaces';
}

/**
 * Per-kind server behaviour applied to every create and main-resource update, after the generic
 * checks: namespace defaults, CRD defaulting, validation and status.
 */
export function prepareKind(
  core: ApiServerCore,
  type: ResourceType,
  obj: JsonObject,
  previous?: JsonObject,
): void {
  normalizeTimeFields(typeKey(type), obj);
  if (isNamespaceType(type)) {
    const meta = metadataOf(obj);
    const name = stringAt(meta, 'name') ?? '';
    meta.labels = { ...(objectAt(meta, 'labels') ?? {}), 'kubernetes.io/metadata.name': name };
    const spec = objectAt(obj, 'spec') ?? {};
    if (previous === undefined) {
      if (!Array.isArray(spec.finalizers)) spec.finalizers = ['kubernetes'];
    } else {
      // spec.finalizers change only through the finalize subresource.
      const before = objectAt(previous, 'spec')?.finalizers;
      if (before === undefined) delete spec.finalizers;
      else spec.finalizers = before;
    }
    obj.spec = spec;
    if (previous === undefined) obj.status = { phase: 'Active' };
    return;
  }
  if (isWebhookConfigurationType(type)) prepareWebhookConfiguration(type, obj);
  if (type.builtin) {
    const check = checkBuiltIn(type.group, type.kind, obj, previous);
    if (check.decodeError !== undefined) throw badRequest(check.decodeError);
    if (check.causes.length > 0) throw invalid(type, stringAt(metadataOf(obj), 'name') ?? '', check.causes);
  }
  if (isCrdType(type)) {
    defaultCrdSpec(obj);
    const causes = validateCustomResourceDefinition(obj);
    if (causes.length > 0) throw invalid(type, stringAt(metadataOf(obj), 'name') ?? '', causes);
    obj.status = crdStatus(obj, core.clock(), objectAt(previous, 'status'));
  }
}

/** After a CRD is stored: (re)register its type so its endpoints and discovery appear at once. */
export function afterKindWrite(core: ApiServerCore, type: ResourceType, stored: JsonObject): void {
  if (!isCrdType(type)) return;
  const meta = metadataOf(stored);
  if (stringsAt(meta, 'finalizers').length > 0 && stringAt(meta, 'deletionTimestamp') !== undefined) {
    // Terminating: keep serving until the cleanup controller removes it.
    return;
  }
  core.registry.register(crdToType(stored));
}
