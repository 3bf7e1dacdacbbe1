import { validateCustomResourceDefinition, validateObjectMeta } from './algorithms.js';
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
import type { FieldCause } from './field-cause.js';

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
  metaCauses: readonly FieldCause[] = [],
): string[] {
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
    return [];
  }
  if (isWebhookConfigurationType(type)) prepareWebhookConfiguration(type, obj);
  const warnings: string[] = [];
  if (type.builtin) {
    const check = checkBuiltIn(type.group, type.kind, obj, previous);
    if (check.decodeError !== undefined) throw badRequest(check.decodeError);
    // kube's ValidateXxx checks metadata first, then the kind's fields, in one 422; a ConfigMap's or
    // Secret's update validates the new object as a create would after its immutability checks.
    const all =
      check.updateCauses === undefined
        ? [...metaCauses, ...check.causes]
        : [
            ...metaCauses,
            ...check.updateCauses,
            ...validateObjectMeta(obj, {
              kind: { group: type.group, version: type.storageVersion, kind: type.kind },
              namespaced: type.namespaced,
              operation: 'create',
            }),
            ...check.causes,
          ];
    if (all.length > 0) throw invalid(type, stringAt(metadataOf(obj), 'name') ?? '', all);
    warnings.push(...(check.warnings ?? []));
  }
  if (isCrdType(type)) {
    defaultCrdSpec(obj);
    const causes = validateCustomResourceDefinition(obj);
    if (causes.length > 0) throw invalid(type, stringAt(metadataOf(obj), 'name') ?? '', causes);
    obj.status = crdStatus(obj, core.clock(), objectAt(previous, 'status'));
  }
  return warnings;
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
