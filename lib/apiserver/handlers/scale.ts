import {
  isJsonObject,
  metadataOf,
  objectAt,
  setValueAtPath,
  stringAt,
  valueAtPath,
  type JsonObject,
} from '../json.js';
import { badRequest, internalError, invalid } from '../status.js';
import { fieldError } from '../validation/field-errors.js';
import type { RequestContext } from './request-context.js';

function selectorString(selector: unknown): string | undefined {
  if (typeof selector === 'string') return selector;
  if (!isJsonObject(selector)) return undefined;
  const labels = objectAt(selector, 'matchLabels') ?? {};
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

/** What a custom resource's Scale shows for a spec replicas field it lacks, before an update (kube's sentinel). */
const MISSING_SPEC_REPLICAS = -2147483648;

/**
 * The autoscaling/v1 Scale view of an object. A custom resource without its spec replicas field has no
 * Scale to read (500, as apiextensions-apiserver answers); to an update it shows the smallest int32, which
 * the update must replace.
 */
export function scaleOf(ctx: RequestContext, obj: JsonObject, forUpdate = false): JsonObject {
  const scale = ctx.type.scale;
  const meta = metadataOf(obj);
  let specReplicas = scale ? valueAtPath(obj, scale.specReplicasPath) : undefined;
  if (!ctx.type.builtin && scale !== undefined && specReplicas === undefined) {
    if (!forUpdate) {
      throw internalError(`the spec replicas field ${JSON.stringify(scale.specReplicasPath)} does not exist`);
    }
    specReplicas = MISSING_SPEC_REPLICAS;
  }
  const statusReplicas = scale ? valueAtPath(obj, scale.statusReplicasPath) : undefined;
  const status: JsonObject = { replicas: typeof statusReplicas === 'number' ? statusReplicas : 0 };
  const selector =
    scale?.labelSelectorPath === undefined
      ? undefined
      : selectorString(valueAtPath(obj, scale.labelSelectorPath));
  if (selector !== undefined && selector !== '') status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    // ScaleSpec.replicas is a value with omitempty: 0 is not encoded (ScaleStatus.replicas always is).
    spec: typeof specReplicas === 'number' && specReplicas !== 0 ? { replicas: specReplicas } : {},
    status,
  };
}

/** Applies a Scale body to the object: only spec.replicas is taken. */
export function scaleToObject(ctx: RequestContext, current: JsonObject, scaleBody: JsonObject): JsonObject {
  const replicas = objectAt(scaleBody, 'spec')?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw badRequest('spec.replicas must be an integer');
  }
  const specPath = ctx.type.scale?.specReplicasPath ?? '.spec.replicas';
  if (!ctx.type.builtin && replicas === MISSING_SPEC_REPLICAS) {
    throw badRequest(`the spec replicas field ${JSON.stringify(specPath)} cannot be empty`);
  }
  // A built-in kind's Scale is validated as such (ValidateScale); a custom resource is validated whole.
  if (ctx.type.builtin && replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, stringAt(metadataOf(current), 'name') ?? '', [
      fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'),
    ]);
  }
  const next = structuredClone(current);
  setValueAtPath(next, specPath, replicas);
  const rv = metadataOf(scaleBody).resourceVersion;
  next.metadata = { ...metadataOf(next), resourceVersion: rv ?? metadataOf(current).resourceVersion };
  return next;
}
