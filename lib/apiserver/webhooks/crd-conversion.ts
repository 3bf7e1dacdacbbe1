/**
 * Converting custom resources between the versions of their CRD, as apiextensions-apiserver does:
 * `strategy: None` rewrites apiVersion only; `strategy: Webhook` sends one ConversionReview with every
 * object that is not yet in the wanted version, checks the answer (uid, count, apiVersion, kind, and
 * metadata other than labels and annotations unchanged) and fails with kube's texts
 * (`conversion webhook for <group>/<version>, Kind=<Kind> failed: …`).
 */
import { randomUUID } from 'node:crypto';
import type { ApiServerCore } from '../core.js';
import { deepEqual, isJsonObject, metadataOf, objectAt, type JsonObject } from '../json.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import { internalError } from '../status.js';
import { callWebhook, WebhookCallError } from './webhook-client.js';
import { endpointOf, type WebhookServiceResolver } from './webhook-endpoint.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
/** kube-apiserver's conversion webhook timeout (not configurable on the CRD). */
export const CONVERSION_WEBHOOK_TIMEOUT_MS = 30_000;

/** The `spec.conversion.webhook` of a type's CRD when its strategy is Webhook. */
export function conversionWebhookOf(core: ApiServerCore, type: ResourceType): JsonObject | undefined {
  if (type.builtin || type.crdName === undefined) return undefined;
  const crd = core.store.get(CRD_KEY, undefined, type.crdName);
  const conversion = objectAt(objectAt(crd, 'spec'), 'conversion');
  if (conversion?.strategy !== 'Webhook') return undefined;
  return objectAt(conversion, 'webhook') ?? {};
}

/** Whether reading or writing `version` of `type` needs the conversion webhook. */
export function needsConversionWebhook(core: ApiServerCore, type: ResourceType, version: string): boolean {
  return version !== type.storageVersion && conversionWebhookOf(core, type) !== undefined;
}

function fail(type: ResourceType, from: string, why: string): never {
  throw internalError(
    `conversion webhook for ${apiVersionOf(type.group, from)}, Kind=${type.kind} failed: ${why}`,
  );
}

const META_KEPT = ['labels', 'annotations'];

function metadataChange(before: JsonObject, after: JsonObject): string | undefined {
  const a = { ...metadataOf(before) };
  const b = { ...metadataOf(after) };
  for (const key of META_KEPT) {
    Reflect.deleteProperty(a, key);
    Reflect.deleteProperty(b, key);
  }
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!deepEqual(a[key], b[key])) return key;
  }
  return undefined;
}

/** Converts `objects` to `toVersion`; objects already in it are returned as they are. */
export async function convertObjects(
  core: ApiServerCore,
  resolve: WebhookServiceResolver | undefined,
  type: ResourceType,
  objects: JsonObject[],
  toVersion: string,
): Promise<JsonObject[]> {
  const desired = apiVersionOf(type.group, toVersion);
  const pending = objects.map((o, i) => [o, i] as const).filter(([o]) => o.apiVersion !== desired);
  if (pending.length === 0) return objects;
  const webhook = conversionWebhookOf(core, type);
  if (webhook === undefined)
    return objects.map((o) => (o.apiVersion === desired ? o : { ...o, apiVersion: desired }));
  const first = pending[0]?.[0].apiVersion;
  const from = (typeof first === 'string' ? first : '').split('/')[1] ?? '';
  const versions = Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [];
  if (!versions.includes('v1')) {
    fail(type, from, `webhook does not accept known ConversionReview versions: ${JSON.stringify(versions)}`);
  }
  const clientConfig = isJsonObject(webhook.clientConfig) ? webhook.clientConfig : {};
  const endpoint = endpointOf(clientConfig, CONVERSION_WEBHOOK_TIMEOUT_MS, resolve);
  if ('error' in endpoint) fail(type, from, endpoint.error);
  const uid = randomUUID();
  const inputs = pending.map(([o]) => o);
  let answer: unknown;
  try {
    answer = await callWebhook(endpoint, {
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.k8s.io/v1',
      request: { uid, desiredAPIVersion: desired, objects: inputs },
    });
  } catch (e) {
    if (e instanceof WebhookCallError) fail(type, from, e.reason);
    throw e;
  }
  const response = isJsonObject(answer) ? objectAt(answer, 'response') : undefined;
  if (response === undefined) fail(type, from, 'no response provided');
  if (response.uid !== uid) {
    fail(
      type,
      from,
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  }
  const result = objectAt(response, 'result');
  if (result?.status !== 'Success') {
    const message = typeof result?.message === 'string' && result.message !== '' ? result.message : undefined;
    fail(
      type,
      from,
      message ??
        `response.result.status was '${typeof result?.status === 'string' ? result.status : ''}', not 'Success'`,
    );
  }
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (converted.length !== inputs.length) {
    fail(type, from, `returned ${converted.length} objects, expected ${inputs.length}`);
  }
  const out = [...objects];
  converted.forEach((c, i) => {
    const input = inputs[i] ?? {};
    if (!isJsonObject(c)) fail(type, from, `converted object[${i}] is not an object`);
    if (c.apiVersion !== desired) {
      fail(
        type,
        from,
        `invalid converted object at index ${i}: invalid apiVersion ${JSON.stringify(c.apiVersion)}, expected ${JSON.stringify(desired)}`,
      );
    }
    if (c.kind !== input.kind) {
      fail(
        type,
        from,
        `invalid converted object at index ${i}: invalid kind ${JSON.stringify(c.kind)}, expected ${JSON.stringify(input.kind)}`,
      );
    }
    const changed = metadataChange(input, c);
    if (changed !== undefined) {
      fail(type, from, `invalid metadata in object at index ${i}: must not change metadata.${changed}`);
    }
    const index = pending[i]?.[1] ?? 0;
    out[index] = c;
  });
  return out;
}
