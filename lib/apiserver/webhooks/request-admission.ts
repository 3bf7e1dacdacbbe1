/** The admission webhooks of one handler request: attributes from the request context. */
import { metadataOf, stringAt, type JsonObject } from '../json.js';
import { isDryRun, type RequestContext } from '../handlers/request-context.js';
import { AdmissionRun, mayCallWebhooks } from './admission-dispatcher.js';
import { typeKey } from '../resource-type.js';
import { conflict } from '../status.js';
import { ConversionNeeded, convertForRequest } from './request-conversion.js';

const OPTIONS_KIND = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' } as const;

/**
 * The webhooks a write may have to pass, or undefined when no webhook configuration exists (the write
 * then stays synchronous). `oldObject` is the stored object in the request's version.
 */
export function requestAdmission(
  ctx: RequestContext,
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  oldObject?: JsonObject,
): AdmissionRun | undefined {
  const settings = ctx.core.webhooks;
  if (settings === undefined || !mayCallWebhooks(ctx.core, ctx.type)) return undefined;
  const options: JsonObject = { kind: OPTIONS_KIND[operation], apiVersion: 'meta.k8s.io/v1' };
  if (isDryRun(ctx)) options.dryRun = ['All'];
  const manager = ctx.query.get('fieldManager');
  if (manager !== null && manager !== '' && operation !== 'DELETE') options.fieldManager = manager;
  const validation = ctx.query.get('fieldValidation');
  if (validation !== null && operation !== 'DELETE') options.fieldValidation = validation;
  return new AdmissionRun(
    ctx.core,
    settings,
    {
      operation,
      type: ctx.type,
      version: ctx.version.name,
      subresource: ctx.info.subresource ?? '',
      namespace: ctx.info.namespace,
      oldObject,
      dryRun: isDryRun(ctx),
      options,
      user: settings.identify(ctx),
    },
    ctx.warnings,
  );
}

/**
 * Thrown when the stored object changed while webhooks were called for an update without a
 * resourceVersion precondition: the write starts over (as kube's GuaranteedUpdate retries), webhooks
 * included.
 */
export class StaleWriteError extends Error {
  constructor() {
    super('the object changed while admission webhooks ran');
    this.name = 'StaleWriteError';
  }
}

/** Attempts of a write whose object keeps changing under its webhooks before it answers 409. */
export const MAX_WRITE_ATTEMPTS = 5;

/**
 * Runs a write handler; starts it over when it reports {@link StaleWriteError} (at most
 * {@link MAX_WRITE_ATTEMPTS} times, then 409 Conflict), with the warnings of the failed attempts dropped.
 */
export async function retryStaleWrites<T>(ctx: RequestContext, write: () => T | Promise<T>): Promise<T> {
  const warnings = [...ctx.warnings];
  let conversions = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (e instanceof ConversionNeeded && conversions++ < MAX_WRITE_ATTEMPTS * 4) {
        await convertForRequest(ctx, e.objects);
        attempt--;
        continue;
      }
      if (!(e instanceof StaleWriteError)) throw e;
      if (attempt >= MAX_WRITE_ATTEMPTS) throw conflict(ctx.type, ctx.info.name ?? '');
      ctx.warnings.length = 0;
      ctx.warnings.push(...warnings);
    }
  }
}

/** The stored object still is `current` (same resourceVersion), else {@link StaleWriteError} or 409. */
export function checkUnchanged(ctx: RequestContext, current: JsonObject, preconditioned: boolean): void {
  const meta = metadataOf(current);
  const name = stringAt(meta, 'name') ?? '';
  const now = ctx.core.store.get(typeKey(ctx.type), ctx.info.namespace, name);
  const nowRv = now === undefined ? undefined : metadataOf(now).resourceVersion;
  if (now !== undefined && nowRv === meta.resourceVersion) return;
  if (preconditioned) throw conflict(ctx.type, name);
  throw new StaleWriteError();
}
