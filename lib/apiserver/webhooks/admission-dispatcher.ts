/**
 * Calls the admission webhooks of one write as kube-apiserver's MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook plugins do (k8s.io/apiserver/pkg/admission/plugin/webhook): matching by
 * rules, matchPolicy, namespaceSelector and objectSelector; mutating webhooks one after another in
 * configuration-name order with their JSON patches applied, those with reinvocationPolicy IfNeeded called
 * again once when a later webhook changed the object; validating webhooks in parallel; dry-run refused
 * for webhooks with side effects; warnings passed to the client; failurePolicy for calls that fail; and
 * kube's status codes and messages for a denial and for a failing call.
 */
import {
  compileCel,
  CostMeter,
  DEFAULT_CEL_PER_CALL_COST_LIMIT,
  evaluationErrorText,
  type CelProgram,
} from '../cel/cel-program.js';
import { toCelValue } from '../cel/cel-value.js';
import { randomUUID } from 'node:crypto';
import type { ApiServerCore } from '../core.js';
import { applyJsonPatch, decodeJsonPatch } from '../algorithms.js';
import { deepEqual, isJsonObject, metadataOf, stringAt, type JsonObject } from '../json.js';
import { apiVersionOf, type ResourceType } from '../resource-type.js';
import { ApiError, badRequest, failureStatus, forbidden, type KubeStatus } from '../status.js';
import type { RequestContext } from '../handlers/request-context.js';
import { callWebhook, WebhookCallError } from './webhook-client.js';
import { endpointOf, type WebhookServiceResolver } from './webhook-endpoint.js';
import {
  admissionWebhooks,
  anyWebhookConfigured,
  isWebhookConfigurationType,
  type AdmissionWebhook,
} from './webhook-configurations.js';
import { matchedVersion, selectorsMatch } from './webhook-rules.js';

/** Who made the request, as an AdmissionRequest's userInfo. */
export interface AdmissionUser {
  username: string;
  groups: string[];
}

/** Converts objects of a type to another of its versions (conversion webhooks for `strategy: Webhook`). */
export type VersionConverter = (
  type: ResourceType,
  objects: JsonObject[],
  toVersion: string,
) => Promise<JsonObject[]>;

/** What the server's webhook machinery needs besides the store. */
export interface WebhookSettings {
  resolveService?: WebhookServiceResolver;
  convert: VersionConverter;
  /** The user of a request (AdmissionRequest.userInfo). */
  identify(ctx: RequestContext): AdmissionUser;
}

/** One admission request's attributes. */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  type: ResourceType;
  /** The version the request was made in. */
  version: string;
  /** '' for the main resource. */
  subresource: string;
  namespace: string | undefined;
  /** The stored object (UPDATE, DELETE), in the request version. */
  oldObject: JsonObject | undefined;
  dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions. */
  options: JsonObject;
  user: AdmissionUser;
}

/** The webhooks that may apply to a request of this type and operation (cheap: no selectors yet). */
export function mayCallWebhooks(core: ApiServerCore, type: ResourceType): boolean {
  return (
    core.webhooks !== undefined &&
    !isWebhookConfigurationType(type) &&
    type.verbs === undefined &&
    anyWebhookConfigured(core)
  );
}

/** A call that failed (not a denial): failurePolicy decides. */
class CallFailure extends Error {}

/** A match condition that failed to evaluate: kube refuses with Forbidden (failurePolicy Fail), not 500. */
class MatchConditionFailure extends Error {}

function deniedStatus(hook: AdmissionWebhook, status: unknown): ApiError {
  const given = isJsonObject(status) ? status : {};
  const deniedBy = `admission webhook ${JSON.stringify(hook.name)} denied the request`;
  const code = typeof given.code === 'number' && given.code >= 400 ? given.code : 400;
  const message =
    typeof given.message === 'string' && given.message !== ''
      ? `${deniedBy}: ${given.message}`
      : typeof given.reason === 'string' && given.reason !== ''
        ? `${deniedBy}: ${given.reason}`
        : `${deniedBy} without explanation`;
  const out: KubeStatus = failureStatus(code, typeof given.reason === 'string' ? given.reason : '', message);
  if (out.reason === '') delete out.reason;
  if (isJsonObject(given.details)) out.details = given.details;
  return new ApiError(out);
}

/** kube's answer when a call fails and failurePolicy is Fail: 500 InternalError naming the webhook. */
function failedClosed(hook: AdmissionWebhook, reason: string): ApiError {
  const text = `failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`;
  // apierrors.NewInternalError: one cause with a message only.
  const causes = [{ message: text }] as unknown as NonNullable<KubeStatus['details']>['causes'];
  return new ApiError(failureStatus(500, 'InternalError', `Internal error occurred: ${text}`, { causes }));
}

/** Runs the admission webhooks of one request. */
export class AdmissionRun {
  constructor(
    private readonly core: ApiServerCore,
    private readonly settings: WebhookSettings,
    readonly attrs: AdmissionAttributes,
    private readonly warnings: string[],
  ) {}

  private matching(
    mutating: boolean,
    object: JsonObject | undefined,
  ): { hook: AdmissionWebhook; version: string }[] {
    const a = this.attrs;
    const target = { operation: a.operation, type: a.type, version: a.version, subresource: a.subresource };
    const out: { hook: AdmissionWebhook; version: string }[] = [];
    for (const hook of admissionWebhooks(this.core, mutating)) {
      const version = matchedVersion(hook, target);
      if (version === undefined) continue;
      if (!selectorsMatch(this.core, hook, a.type, a.namespace, object, a.oldObject)) continue;
      out.push({ hook, version });
    }
    return out;
  }

  /** Mutating webhooks in order; returns the object as they left it (unchanged when none applies). */
  async mutate(object: JsonObject | undefined): Promise<JsonObject | undefined> {
    let current = object;
    const matched = this.matching(true, object);
    if (matched.length === 0) return current;
    const reinvoke = new Set<AdmissionWebhook>();
    // IfNeeded webhooks already called → whether a later webhook changed the object since.
    const changedSinceCall = new Map<AdmissionWebhook, boolean>();
    for (const { hook, version } of matched) {
      const next = await this.callMutating(hook, version, current);
      const changed = next !== undefined && current !== undefined && !deepEqual(next, current);
      if (changed) for (const [h] of changedSinceCall) changedSinceCall.set(h, true);
      if (hook.reinvocationPolicy === 'IfNeeded') changedSinceCall.set(hook, false);
      current = next;
    }
    for (const [h, changed] of changedSinceCall) if (changed) reinvoke.add(h);
    for (const { hook, version } of matched) {
      if (!reinvoke.has(hook)) continue;
      current = await this.callMutating(hook, version, current);
    }
    return current;
  }

  /** Validating webhooks, called in parallel; the first denial or failed-closed call rejects. */
  async validate(object: JsonObject | undefined): Promise<void> {
    const matched = this.matching(false, object);
    if (matched.length === 0) return;
    const results = await Promise.allSettled(
      matched.map(async ({ hook, version }) => {
        await this.call(hook, version, object);
      }),
    );
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  private async callMutating(
    hook: AdmissionWebhook,
    version: string,
    object: JsonObject | undefined,
  ): Promise<JsonObject | undefined> {
    const response = await this.call(hook, version, object);
    if (response === undefined || typeof response.patch !== 'string' || object === undefined) return object;
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    } catch (e) {
      throw new ApiError(
        failureStatus(
          500,
          'InternalError',
          `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    }
    const shown = await this.inVersion(object, version);
    let patched: unknown;
    try {
      patched = applyJsonPatch(structuredClone(shown), decodeJsonPatch(ops, false).operations);
    } catch (e) {
      throw new ApiError(
        failureStatus(
          500,
          'InternalError',
          `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`,
        ),
      );
    }
    if (!isJsonObject(patched)) {
      throw new ApiError(
        failureStatus(500, 'InternalError', 'Internal error occurred: the patched object is not an object'),
      );
    }
    return this.inVersion(patched, this.attrs.version);
  }

  private async inVersion(obj: JsonObject, version: string): Promise<JsonObject> {
    const apiVersion = apiVersionOf(this.attrs.type.group, version);
    if (obj.apiVersion === apiVersion) return obj;
    const [converted] = await this.settings.convert(this.attrs.type, [obj], version);
    return converted ?? obj;
  }

  /**
   * One call, with failurePolicy applied: resolves with the response when the webhook allowed the
   * request (undefined when it failed open), rejects with the ApiError kube-apiserver answers otherwise.
   */
  private async call(
    hook: AdmissionWebhook,
    version: string,
    object: JsonObject | undefined,
  ): Promise<JsonObject | undefined> {
    const a = this.attrs;
    if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
    }
    try {
      const response = await this.request(hook, version, object);
      if (response === undefined) return undefined;
      if (response.allowed !== true) throw deniedStatus(hook, response.status);
      if (Array.isArray(response.warnings)) {
        for (const w of response.warnings) if (typeof w === 'string' && w !== '') this.warnings.push(w);
      }
      return response;
    } catch (e) {
      if (e instanceof MatchConditionFailure) {
        if (hook.failurePolicy === 'Ignore') return undefined;
        throw this.forbidden(e.message, object);
      }
      if (!(e instanceof CallFailure)) throw e;
      if (hook.failurePolicy === 'Ignore') {
        this.core.log('warn', 'Failed calling webhook, failing open', {
          webhook: hook.name,
          error: e.message,
        });
        return undefined;
      }
      throw failedClosed(hook, e.message);
    }
  }

  /** apierrors.NewForbidden for this request's resource and name, as kube answers a failed match condition. */
  private forbidden(reason: string, object: JsonObject | undefined): ApiError {
    const a = this.attrs;
    const resource = a.type.group === '' ? a.type.resource : `${a.type.resource}.${a.type.group}`;
    const name = admissionName(object ?? a.oldObject);
    const message =
      name === ''
        ? `${resource} is forbidden: ${reason}`
        : `${resource} ${JSON.stringify(name)} is forbidden: ${reason}`;
    return forbidden(message, {
      ...(name === '' ? {} : { name }),
      group: a.type.group,
      kind: a.type.resource,
    });
  }

  /** The webhook's response, or undefined when a match condition is false (the webhook is not called). */
  private async request(
    hook: AdmissionWebhook,
    version: string,
    object: JsonObject | undefined,
  ): Promise<JsonObject | undefined> {
    const a = this.attrs;
    if (!hook.admissionReviewVersions.includes('v1')) {
      throw new CallFailure(
        `webhook does not accept known AdmissionReview versions: ${JSON.stringify(hook.admissionReviewVersions)}`,
      );
    }
    const endpoint = endpointOf(hook.clientConfig, hook.timeoutSeconds * 1000, this.settings.resolveService);
    if ('error' in endpoint) throw new CallFailure(`failed to call webhook: ${endpoint.error}`);
    const uid = randomUUID();
    const name = admissionName(object ?? a.oldObject);
    const requestKind = { group: a.type.group, version: a.version, kind: a.type.kind };
    const requestResource = { group: a.type.group, version: a.version, resource: a.type.resource };
    const request: JsonObject = {
      uid,
      kind: { ...requestKind, version },
      resource: { ...requestResource, version },
      ...(a.subresource === '' ? {} : { subResource: a.subresource }),
      requestKind,
      requestResource,
      ...(a.subresource === '' ? {} : { requestSubResource: a.subresource }),
      ...(name === '' ? {} : { name }),
      ...(a.namespace === undefined || a.namespace === '' ? {} : { namespace: a.namespace }),
      operation: a.operation,
      userInfo: { username: a.user.username, groups: a.user.groups },
      object: object === undefined ? null : await this.inVersion(object, version),
      oldObject: a.oldObject === undefined ? null : await this.inVersion(a.oldObject, version),
      dryRun: a.dryRun,
      options: a.options,
    };
    if (hook.matchConditions.length > 0) {
      const failed = evaluateMatchConditions(hook.matchConditions, request);
      if (failed === false) return undefined;
      if (failed !== true) throw new MatchConditionFailure(failed);
    }
    let answer: unknown;
    try {
      answer = await callWebhook(endpoint, {
        kind: 'AdmissionReview',
        apiVersion: 'admission.k8s.io/v1',
        request,
      });
    } catch (e) {
      if (e instanceof WebhookCallError) throw new CallFailure(`failed to call webhook: ${e.reason}`);
      throw e;
    }
    const invalid = (why: string): CallFailure =>
      new CallFailure(`received invalid webhook response: ${why}`);
    if (
      !isJsonObject(answer) ||
      answer.kind !== 'AdmissionReview' ||
      answer.apiVersion !== 'admission.k8s.io/v1'
    ) {
      const gvk = isJsonObject(answer)
        ? `${String(answer.apiVersion)}, Kind=${String(answer.kind)}`
        : 'nothing';
      throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvk}`);
    }
    const response = answer.response;
    if (!isJsonObject(response)) throw invalid('webhook response was absent');
    if (response.uid !== uid) {
      throw invalid(
        `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
      );
    }
    if (response.patch !== undefined && !hook.mutating)
      throw invalid('validating webhooks may not return patches');
    if (response.patch !== undefined && response.patchType !== 'JSONPatch') {
      throw invalid(`webhook returned invalid patchType: ${JSON.stringify(response.patchType ?? '')}`);
    }
    return response;
  }
}

/** Name of the object for the review: '' for a create with generateName (named after admission). */
export function admissionName(obj: JsonObject | undefined, fallback = ''): string {
  return obj === undefined ? fallback : (stringAt(metadataOf(obj), 'name') ?? fallback);
}

/** Compiled matchConditions expressions (or why one does not compile), by source; bounded. */
const compiledConditions = new Map<string, CelProgram | string>();
const MAX_COMPILED_CONDITIONS = 1024;

function compiledCondition(expression: string): CelProgram | string {
  let program = compiledConditions.get(expression);
  if (program === undefined) {
    try {
      program = compileCel(expression, 'bool', false, 'admission');
    } catch (e) {
      program = e instanceof Error ? e.message : String(e);
    }
    if (compiledConditions.size >= MAX_COMPILED_CONDITIONS) compiledConditions.clear();
    compiledConditions.set(expression, program);
  }
  return program;
}

/**
 * A webhook's matchConditions on one request, as kube-apiserver's matcher decides: false when any
 * condition is false (the webhook is not called, whatever the others did), true when all are true, else
 * the errors (failurePolicy decides: Fail refuses the request, Ignore skips the webhook).
 */
export function evaluateMatchConditions(
  conditions: readonly { name: string; expression: string }[],
  request: JsonObject,
): boolean | string {
  const vars = {
    object: toCelValue(request.object, undefined),
    oldObject: toCelValue(request.oldObject, undefined),
    request: toCelValue({ ...request, object: undefined, oldObject: undefined }, undefined),
    namespaceObject: null,
  };
  const errors: string[] = [];
  for (const condition of conditions) {
    const program = compiledCondition(condition.expression);
    if (typeof program === 'string') {
      errors.push(`compilation failed for match condition ${JSON.stringify(condition.name)}: ${program}`);
      continue;
    }
    let result: unknown;
    try {
      result = program.run(vars, new CostMeter(DEFAULT_CEL_PER_CALL_COST_LIMIT));
    } catch (e) {
      // kube-apiserver's matcher names the expression, not the condition.
      errors.push(`expression '${condition.expression}' resulted in error: ${evaluationErrorText(e)}`);
      continue;
    }
    if (result === false) return false;
    if (result !== true) errors.push(`match condition ${JSON.stringify(condition.name)}: no such overload`);
  }
  // One error as it is; several as an aggregate error prints them ([a, b]).
  return errors.length === 0 ? true : errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}
