/**
 * The raw admission handler, and the one place where a review becomes a call of user code and back:
 * malformed reviews, thrown errors and garbage results all become a denied `AdmissionResponse` that says
 * what went wrong, so the API server gets an answer it can act on and the webhook server keeps serving.
 */
import {
  admissionReviewOf,
  isMalformedReview,
  parseAdmissionReview,
  type AdmissionResponse,
  type AdmissionStatus,
  type JsonObject,
} from './admission-review.js';
import { admissionRejectionOf } from './admission-rejected-error.js';
import { jsonPatchDiff, type JsonPatchOperation } from './json-patch-diff.js';
import {
  admissionRegistrationOf,
  type AdmissionContext,
  type AdmissionHandlerOptions,
  type WebhookHandler,
} from './webhook-handler.js';
import type { AdmissionOperation } from './admission-review.js';

/** What an admission function decides. */
export interface AdmissionVerdict {
  allowed: boolean;
  /** Mutating handlers: the object to admit instead of the request's (the framework computes the patch). */
  object?: JsonObject;
  /** Mutating handlers: an explicit RFC 6902 patch instead of `object`. */
  patch?: JsonPatchOperation[];
  /** Why a request is denied. */
  status?: AdmissionStatus;
  warnings?: string[];
}

/** Options of {@link admissionHandler}. */
export interface RawAdmissionHandlerOptions extends AdmissionHandlerOptions {
  /** `mutating` (may patch) or `validating`. */
  type: 'mutating' | 'validating';
  /** Operations sent to the handler; default CREATE and UPDATE. */
  operations?: AdmissionOperation[];
  /** Mutating only: `Never` (default) or `IfNeeded`. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  handle(ctx: AdmissionContext): AdmissionVerdict | Promise<AdmissionVerdict>;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function denied(uid: string, code: number, message: string, reason = ''): AdmissionResponse {
  const status: AdmissionStatus = { status: 'Failure', code, message };
  if (reason !== '') status.reason = reason;
  return { uid, allowed: false, status };
}

/** A readable one-line description of an unexpected value, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (value === undefined) return 'nothing (undefined)';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return `a ${typeof value}`;
}

function checkVerdict(verdict: unknown, mutating: boolean): string | undefined {
  if (!isObject(verdict)) return `the handler returned ${describeValue(verdict)}, expected { allowed, … }`;
  if (typeof verdict.allowed !== 'boolean') return 'the handler\'s verdict has no boolean "allowed"';
  if (verdict.object !== undefined && !isObject(verdict.object)) {
    return `the handler's verdict.object is ${describeValue(verdict.object)}, expected an object`;
  }
  if (verdict.patch !== undefined && !Array.isArray(verdict.patch)) {
    return `the handler's verdict.patch is ${describeValue(verdict.patch)}, expected a list of operations`;
  }
  if (!mutating && (verdict.object !== undefined || verdict.patch !== undefined)) {
    return 'a validating handler may not return an object or a patch';
  }
  if (verdict.warnings !== undefined) {
    if (!Array.isArray(verdict.warnings) || verdict.warnings.some((w) => typeof w !== 'string')) {
      return "the handler's verdict.warnings must be a list of strings";
    }
  }
  return undefined;
}

/**
 * Runs an admission function on one review body and answers the review. The function's errors: an
 * `AdmissionRejectedError` is a denial with its code, message and causes; anything else is a denial
 * with code 500 whose message starts `webhook handler failed:`.
 */
export async function answerAdmission(
  body: unknown,
  signal: AbortSignal,
  mutating: boolean,
  fn: (ctx: AdmissionContext) => AdmissionVerdict | Promise<AdmissionVerdict>,
): Promise<unknown> {
  let review;
  try {
    review = parseAdmissionReview(body);
  } catch (e) {
    if (!isMalformedReview(e)) throw e;
    return admissionReviewOf(denied(e.uid, 400, `malformed AdmissionReview: ${e.message}`, 'BadRequest'));
  }
  const request = review.request;
  const warnings: string[] = [];
  const ctx: AdmissionContext = {
    request,
    operation: request.operation,
    dryRun: request.dryRun === true,
    signal,
    warn: (text) => {
      warnings.push(text);
    },
  };
  let verdict: unknown;
  try {
    verdict = await fn(ctx);
  } catch (e) {
    const rejection = admissionRejectionOf(e);
    if (rejection === undefined) {
      const message = e instanceof Error ? e.message : String(e);
      return admissionReviewOf(
        withWarnings(
          denied(request.uid, 500, `webhook handler failed: ${message}`, 'InternalError'),
          warnings,
        ),
      );
    }
    const status: AdmissionStatus = { status: 'Failure', code: rejection.code, message: rejection.message };
    if (rejection.reason !== '') status.reason = rejection.reason;
    if (rejection.causes.length > 0) {
      // As apimachinery's NewInvalid: kubectl then prints `The Widget "w" is invalid: <field>: <message>`.
      const object = request.object ?? request.oldObject ?? {};
      const meta = (isObject(object.metadata) ? object.metadata : {}) as { name?: unknown };
      const name = typeof meta.name === 'string' ? meta.name : (request.name ?? '');
      const { group, kind } = request.kind;
      if (rejection.code === 422) {
        status.message = `${group === '' ? kind : `${kind}.${group}`} ${JSON.stringify(name)} is invalid: ${rejection.message}`;
      }
      status.details = {
        name,
        ...(group === '' ? {} : { group }),
        kind,
        causes: rejection.causes.map((c) => ({
          reason: c.reason ?? 'FieldValueInvalid',
          message: c.message,
          field: c.field,
        })),
      };
    }
    warnings.push(...rejection.warnings);
    return admissionReviewOf(withWarnings({ uid: request.uid, allowed: false, status }, warnings));
  }
  const problem = checkVerdict(verdict, mutating);
  if (problem !== undefined) {
    return admissionReviewOf(
      withWarnings(denied(request.uid, 500, `webhook handler failed: ${problem}`, 'InternalError'), warnings),
    );
  }
  const v = verdict as AdmissionVerdict;
  const response: AdmissionResponse = { uid: request.uid, allowed: v.allowed };
  if (v.status !== undefined) response.status = v.status;
  warnings.push(...(v.warnings ?? []));
  if (v.allowed && mutating) {
    const ops = v.patch ?? (v.object === undefined ? [] : jsonPatchDiff(request.object ?? {}, v.object));
    if (ops.length > 0) {
      response.patchType = 'JSONPatch';
      response.patch = Buffer.from(JSON.stringify(ops)).toString('base64');
    }
  }
  return admissionReviewOf(withWarnings(response, warnings));
}

function withWarnings(response: AdmissionResponse, warnings: string[]): AdmissionResponse {
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}

/**
 * A handler for anything the typed ones do not cover: it sees the whole request and returns an
 * {@link AdmissionVerdict} (allowed, an object or patch to apply, a status, warnings).
 */
export function admissionHandler(options: RawAdmissionHandlerOptions): WebhookHandler {
  const operations = options.operations ?? ['CREATE', 'UPDATE'];
  const extra =
    options.type === 'mutating' ? { reinvocationPolicy: options.reinvocationPolicy ?? 'Never' } : {};
  const { path, registration } = admissionRegistrationOf('admit', options, operations, extra);
  const mutating = options.type === 'mutating';
  return {
    kind: options.type,
    path,
    admission: registration,
    review: (body, signal) => answerAdmission(body, signal, mutating, (ctx) => options.handle(ctx)),
  };
}
