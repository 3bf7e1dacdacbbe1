import { isJsonObject, metadataOf, objectAt, setValueAtPath, valueAtPath, type JsonObject } from '../json.js';
import { badRequest } from '../status.js';
import type { RequestContext } from './request-context.js';

function selectorString(selector: unknown): string | undefined {
  if (typeof selector === 'string') return selector;
  if (!isJsonObject(selector)) return undefined;
  const labels = objectAt(selector, 'matchLabels') ?? {};
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

/** The autoscaling/v1 Scale view of an object. */
export function scaleOf(ctx: RequestContext, obj: JsonObject): JsonObject {
  const scale = ctx.type.scale;
  const meta = metadataOf(obj);
  const specReplicas = scale ? valueAtPath(obj, scale.specReplicasPath) : undefined;
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
    spec: { replicas: typeof specReplicas === 'number' ? specReplicas : 0 },
    status,
  };
}

/** Applies a Scale body to the object: only spec.replicas is taken. */
export function scaleToObject(ctx: RequestContext, current: JsonObject, scaleBody: JsonObject): JsonObject {
  const replicas = objectAt(scaleBody, 'spec')?.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw badRequest('spec.replicas must be a non-negative integer');
  }
  const next = structuredClone(current);
  setValueAtPath(next, ctx.type.scale?.specReplicasPath ?? '.spec.replicas', replicas);
  const rv = metadataOf(scaleBody).resourceVersion;
  next.metadata = { ...metadataOf(next), resourceVersion: rv ?? metadataOf(current).resourceVersion };
  return next;
}
