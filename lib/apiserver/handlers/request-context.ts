import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiServerCore } from '../core.js';
import type { ResourceRequest } from '../request-info.js';
import type { ResourceType, ServedVersion } from '../resource-type.js';
import type { KindRef } from '../patch/kind-ref.js';
import type { JsonObject } from '../json.js';
import { ApiError, failureStatus } from '../status.js';

/** Everything a verb handler gets for one resource request. */
export interface RequestContext {
  core: ApiServerCore;
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequest;
  type: ResourceType;
  version: ServedVersion;
  query: URLSearchParams;
  /** The raw request body (empty when none). */
  body: Buffer;
  /** `Warning` header texts to send with the reply. */
  warnings: string[];
  /**
   * Set when the request's version converts through the CRD's conversion webhook: stored objects
   * (storage version) → the same objects in the request's version (lib/apiserver/webhooks/request-conversion.ts).
   */
  conversions?: WeakMap<JsonObject, JsonObject>;
  /** The body's unknown fields were reported when it was decoded (POST/PUT): not again on admission. */
  unknownFieldsReported?: boolean;
}

/** The options kind kube-apiserver names when a write's options are invalid, per verb. */
const OPTIONS_KIND: Record<string, string> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
};

/**
 * Rejects dryRun values other than "All" as kube-apiserver does: 422 Invalid on the verb's options kind
 * (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ...`), before the body is read.
 */
export function checkDryRunValues(verb: string, values: readonly string[]): void {
  const kind = OPTIONS_KIND[verb];
  if (kind === undefined || values.every((v) => v === 'All')) return;
  // field.NotSupported shows a list value as JSON in v1.34 (`["All","x"]`).
  const rendered = JSON.stringify(values);
  const message = `Unsupported value: ${rendered}: supported values: "All"`;
  const causes = [{ reason: 'FieldValueNotSupported', message, field: 'dryRun' }];
  throw new ApiError(
    failureStatus(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: dryRun: ${message}`, {
      group: 'meta.k8s.io',
      kind,
      causes,
    }),
  );
}

/** dryRun=All was requested. */
export function isDryRun(ctx: RequestContext): boolean {
  return ctx.query.getAll('dryRun').includes('All');
}

/** The field manager of a write: the fieldManager parameter, else the user agent's product name. */
export function managerOf(ctx: RequestContext): string {
  const explicit = ctx.query.get('fieldManager');
  if (explicit !== null && explicit !== '') return explicit;
  const agent = ctx.req.headers['user-agent'] ?? 'unknown';
  return agent.split('/')[0] ?? 'unknown';
}

/**
 * The fields a write through this endpoint may not set, which no field manager of it owns (the strategy's
 * GetResetFields): `status` on the main resource of a type with a status subresource, `spec` on its status
 * (and a Deployment's `metadata.labels`, which its status strategy also keeps).
 */
export function resetFieldsOf(ctx: RequestContext): string[][] {
  if (!ctx.type.statusSubresource) return [];
  const sub = ctx.info.subresource;
  if (sub === undefined) return [['status']];
  if (sub !== 'status') return [];
  return ctx.type.group === 'apps' && ctx.type.kind === 'Deployment'
    ? [['spec'], ['metadata', 'labels']]
    : [['spec']];
}

/** The kind of the request's objects, with the served version's schema (list merge rules for apply). */
export function kindRefOf(ctx: RequestContext, kind = ctx.type.kind): KindRef {
  const ref: KindRef = { group: ctx.type.group, version: ctx.version.name, kind };
  if (ctx.version.schema !== undefined) ref.schema = ctx.version.schema;
  return ref;
}
