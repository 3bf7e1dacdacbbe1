/**
 * A validating webhook from up to three functions, as controller-runtime's CustomValidator: each returns
 * warnings (or nothing) to admit, or throws `AdmissionRejectedError` to deny with a code, a message and
 * field causes.
 */
import type { AdmissionOperation, JsonObject } from './admission-review.js';
import { answerAdmission, describeValue } from './admission-handler.js';
import {
  admissionRegistrationOf,
  type AdmissionContext,
  type AdmissionHandlerOptions,
  type WebhookHandler,
} from './webhook-handler.js';

/** Warnings to show the client, or nothing. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a validator that returns nothing admits
export type ValidationResult = readonly string[] | undefined | void;

/** Options of {@link validator}; the operations validated are the functions given. */
export interface ValidatorOptions<T extends object = JsonObject> extends AdmissionHandlerOptions {
  validateCreate?(ctx: AdmissionContext, obj: T): ValidationResult | Promise<ValidationResult>;
  validateUpdate?(ctx: AdmissionContext, oldObj: T, obj: T): ValidationResult | Promise<ValidationResult>;
  validateDelete?(ctx: AdmissionContext, obj: T): ValidationResult | Promise<ValidationResult>;
}

function warningsOf(result: unknown, which: string): string[] {
  if (result === undefined || result === null) return [];
  if (Array.isArray(result) && result.every((w) => typeof w === 'string')) return result;
  throw new Error(
    `${which} returned ${describeValue(result)}, expected warnings (a list of strings) or nothing`,
  );
}

/** Builds a validating webhook handler from `validateCreate` / `validateUpdate` / `validateDelete`. */
export function validator<T extends object = JsonObject>(options: ValidatorOptions<T>): WebhookHandler {
  const operations: AdmissionOperation[] = [];
  if (options.validateCreate !== undefined) operations.push('CREATE');
  if (options.validateUpdate !== undefined) operations.push('UPDATE');
  if (options.validateDelete !== undefined) operations.push('DELETE');
  if (operations.length === 0) {
    throw new TypeError('validator needs at least one of validateCreate, validateUpdate, validateDelete');
  }
  const { path, registration } = admissionRegistrationOf('validate', options, operations);
  return {
    kind: 'validating',
    path,
    admission: registration,
    review: (body, signal) =>
      answerAdmission(body, signal, false, async (ctx) => {
        const obj = (ctx.request.object ?? {}) as T;
        const old = (ctx.request.oldObject ?? {}) as T;
        let result: unknown;
        switch (ctx.operation) {
          case 'CREATE':
            result = await options.validateCreate?.(ctx, obj);
            return { allowed: true, warnings: warningsOf(result, 'validateCreate') };
          case 'UPDATE':
            result = await options.validateUpdate?.(ctx, old, obj);
            return { allowed: true, warnings: warningsOf(result, 'validateUpdate') };
          case 'DELETE':
            result = await options.validateDelete?.(ctx, old);
            return { allowed: true, warnings: warningsOf(result, 'validateDelete') };
          default:
            return { allowed: true };
        }
      }),
  };
}
