import type { FieldCause } from './field-cause.js';

/** `Status.details` as kube-apiserver reports it. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: (FieldCause | { reason?: string; message: string; field?: string })[];
  retryAfterSeconds?: number;
}

/** A meta/v1 Status object (errors and delete successes). */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  /** Empty, except a continue token on a 410 for an expired continue (kube's inconsistent-list offer). */
  metadata: { continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Names a resource in error messages: `widgets.example.com`, or `configmaps` for the core group. */
export interface ResourceName {
  group: string;
  resource: string;
}

/** An error the server answers with a Status body; `status.code` is the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: KubeStatus,
    readonly headers: Record<string, string> = {},
  ) {
    super(status.message ?? status.reason ?? 'error');
    this.name = 'ApiError';
  }

  get code(): number {
    return this.status.code;
  }
}

/** True when `e` is an ApiError. */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** A failure Status with the given code, reason and message. */
export function failureStatus(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): KubeStatus {
  const status: KubeStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  if (details !== undefined) status.details = details;
  return status;
}

function qualified(ref: ResourceName): string {
  return ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
}

function details(ref: ResourceName, name: string): StatusDetails {
  return ref.group === '' ? { name, kind: ref.resource } : { name, group: ref.group, kind: ref.resource };
}

export function notFound(ref: ResourceName, name: string): ApiError {
  return new ApiError(
    failureStatus(404, 'NotFound', `${qualified(ref)} "${name}" not found`, details(ref, name)),
  );
}

export function alreadyExists(ref: ResourceName, name: string, beingDeleted = false): ApiError {
  const prefix = beingDeleted ? 'object is being deleted: ' : '';
  return new ApiError(
    failureStatus(
      409,
      'AlreadyExists',
      `${prefix}${qualified(ref)} "${name}" already exists`,
      details(ref, name),
    ),
  );
}

export function conflict(ref: ResourceName, name: string, why?: string): ApiError {
  const reason =
    why ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new ApiError(
    failureStatus(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(ref)} "${name}": ${reason}`,
      details(ref, name),
    ),
  );
}

/** 422 Invalid; `kind` is the Kind (not the plural), as kube-apiserver reports it. */
export function invalid(kind: { group: string; kind: string }, name: string, causes: FieldCause[]): ApiError {
  const qualifiedKind = kind.group === '' ? kind.kind : `${kind.kind}.${kind.group}`;
  // The message lists each distinct error once (field.ErrorList.ToAggregate); the causes keep them all.
  const parts = [...new Set(causes.map((c) => (c.field === '' ? c.message : `${c.field}: ${c.message}`)))];
  const summary = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  // StatusDetails.name is omitempty: an object without a name has none.
  const d: StatusDetails = name === '' ? { kind: kind.kind, causes } : { name, kind: kind.kind, causes };
  if (kind.group !== '') d.group = kind.group;
  return new ApiError(failureStatus(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, d));
}

export function badRequest(message: string): ApiError {
  return new ApiError(failureStatus(400, 'BadRequest', message));
}

export function unauthorized(): ApiError {
  return new ApiError(failureStatus(401, 'Unauthorized', 'Unauthorized'));
}

export function forbidden(message: string, d?: StatusDetails): ApiError {
  return new ApiError(failureStatus(403, 'Forbidden', message, d));
}

export function pathNotFound(): ApiError {
  // kube-apiserver's NewGenericServerResponse carries an empty details object here.
  return new ApiError(failureStatus(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** 405; go-restful's own answer for a method the path has no route for carries empty details. */
export function methodNotAllowed(message?: string): ApiError {
  if (message !== undefined) return new ApiError(failureStatus(405, 'MethodNotAllowed', message));
  return new ApiError(
    failureStatus(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
      {},
    ),
  );
}

export function notAcceptable(message: string): ApiError {
  return new ApiError(failureStatus(406, 'NotAcceptable', message));
}

export function expired(message: string): ApiError {
  return new ApiError(failureStatus(410, 'Expired', message));
}

export function requestEntityTooLarge(limit: number): ApiError {
  return new ApiError(
    failureStatus(413, 'RequestEntityTooLarge', `the request body exceeds the limit of ${limit} bytes`),
  );
}

/** 415; `details` only where kube's answer has them (go-restful's own 415 carries an empty object). */
export function unsupportedMediaType(message: string, details?: StatusDetails): ApiError {
  return new ApiError(failureStatus(415, 'UnsupportedMediaType', message, details));
}

/** kube's NewInternalError: the text, also as the one cause. */
export function internalError(message: string): ApiError {
  return new ApiError(
    failureStatus(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  );
}

/** A Status for an arbitrary code (fault injection); 429/503 carry Retry-After when given. */
export function statusForCode(code: number, message?: string, retryAfterSeconds?: number): ApiError {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Expired',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  const reason = reasons[code] ?? 'Unknown';
  const d: StatusDetails | undefined = retryAfterSeconds === undefined ? undefined : { retryAfterSeconds };
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
  return new ApiError(failureStatus(code, reason, message ?? `injected fault: ${reason}`, d), headers);
}

/** The Status a successful DELETE answers with for most types. */
export function deleteSuccess(ref: ResourceName, name: string, uid: string): Record<string, unknown> {
  const d = details(ref, name);
  d.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: d };
}
