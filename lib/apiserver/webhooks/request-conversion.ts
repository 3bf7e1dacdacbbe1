/**
 * Conversion webhooks inside one request, for a custom resource read or written in a version other than
 * its storage version when the CRD's strategy is Webhook. Objects are stored in the storage version and
 * shown in the requested one: before the handler runs, the stored objects it will present (the named
 * object, or the whole collection for a list) are converted in one ConversionReview; a handler that meets
 * one that was not converted (the store changed meanwhile) stops with {@link ConversionNeeded} and runs
 * again once it is. Writes convert the admitted object to the storage version before they commit.
 */
import type { JsonObject } from '../json.js';
import { metadataOf } from '../json.js';
import type { RequestContext } from '../handlers/request-context.js';
import { typeKey } from '../resource-type.js';
import { needsConversionWebhook } from './crd-conversion.js';

/** A handler met a stored object that is not converted to the request's version yet. */
export class ConversionNeeded extends Error {
  constructor(readonly objects: JsonObject[]) {
    super('stored objects need converting to the request version');
    this.name = 'ConversionNeeded';
  }
}

/** Converts `objects` to the request's version and remembers each result for `presentObject`. */
export async function convertForRequest(ctx: RequestContext, objects: JsonObject[]): Promise<void> {
  const conversions = ctx.conversions;
  const settings = ctx.core.webhooks;
  if (conversions === undefined || settings === undefined) return;
  const missing = objects.filter((o) => !conversions.has(o));
  if (missing.length === 0) return;
  const converted = await settings.convert(ctx.type, missing, ctx.version.name);
  missing.forEach((o, i) => {
    const c = converted[i];
    if (c !== undefined) conversions.set(o, c);
  });
}

/**
 * Sets `ctx.conversions` when the request's version needs the conversion webhook, and converts what the
 * handler will present: the named object, or every object of the collection.
 */
export async function prepareConversions(ctx: RequestContext): Promise<void> {
  if (ctx.type.builtin || !needsConversionWebhook(ctx.core, ctx.type, ctx.version.name)) return;
  ctx.conversions = new WeakMap();
  const key = typeKey(ctx.type);
  if (ctx.info.name !== undefined) {
    const current = ctx.core.store.get(key, ctx.info.namespace, ctx.info.name);
    if (current !== undefined) await convertForRequest(ctx, [current]);
  } else if (ctx.info.verb === 'list' || ctx.info.verb === 'deletecollection') {
    await convertForRequest(ctx, ctx.core.store.list(key, ctx.info.namespace));
  }
}

/** The stored object in the request's version, or {@link ConversionNeeded}. */
export function convertedFor(
  ctx: RequestContext,
  conversions: WeakMap<JsonObject, JsonObject>,
  obj: JsonObject,
) {
  const converted = conversions.get(obj);
  if (converted === undefined) throw new ConversionNeeded([obj]);
  return converted;
}

/** The request-version object to answer a write with, remembered for the stored object it became. */
export function rememberWritten(ctx: RequestContext, stored: JsonObject, requestForm: JsonObject): void {
  ctx.conversions?.set(stored, { ...requestForm, metadata: metadataOf(stored) });
}

/** Whether writes of this request convert to the storage version through the webhook. */
export function convertsOnWrite(ctx: RequestContext): boolean {
  return ctx.conversions !== undefined;
}

/** The object in the storage version, through the conversion webhook. */
export async function toStorageVersion(ctx: RequestContext, obj: JsonObject): Promise<JsonObject> {
  const settings = ctx.core.webhooks;
  if (settings === undefined) return obj;
  const [converted] = await settings.convert(ctx.type, [obj], ctx.type.storageVersion);
  return converted ?? obj;
}
