/**
 * A defaulting (mutating) webhook from one function: `default(ctx, obj)` returns the object as it should
 * be stored — changed in place or a new one — and the framework answers with the JSON patch between the
 * request's object and that result.
 */
import type { AdmissionOperation, JsonObject } from './admission-review.js';
import { answerAdmission, describeValue } from './admission-handler.js';
import {
  admissionRegistrationOf,
  type AdmissionContext,
  type AdmissionHandlerOptions,
  type WebhookHandler,
} from './webhook-handler.js';

/** Options of {@link defaulter}. */
export interface DefaulterOptions<T extends object = JsonObject> extends AdmissionHandlerOptions {
  /** Operations defaulted; default CREATE and UPDATE. */
  operations?: ('CREATE' | 'UPDATE')[];
  /** `Never` (default) or `IfNeeded` (called again when a later webhook changed the object). */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** Returns the defaulted object; it receives a copy of the request's object and may change it in place. */
  default(ctx: AdmissionContext, obj: T): T | Promise<T>;
}

/** Builds a mutating webhook handler that applies `options.default` to every matching create and update. */
export function defaulter<T extends object = JsonObject>(options: DefaulterOptions<T>): WebhookHandler {
  const operations: AdmissionOperation[] = options.operations ?? ['CREATE', 'UPDATE'];
  const { path, registration } = admissionRegistrationOf('default', options, operations, {
    reinvocationPolicy: options.reinvocationPolicy ?? 'Never',
  });
  return {
    kind: 'mutating',
    path,
    admission: registration,
    review: (body, signal) =>
      answerAdmission(body, signal, true, async (ctx) => {
        const copy = structuredClone(ctx.request.object ?? {}) as T;
        const result: unknown = await options.default(ctx, copy);
        if (typeof result !== 'object' || result === null || Array.isArray(result)) {
          throw new Error(`the defaulter returned ${describeValue(result)}, expected the object`);
        }
        return { allowed: true, object: result as JsonObject };
      }),
  };
}
