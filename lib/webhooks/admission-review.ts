/**
 * The `admission.k8s.io/v1` AdmissionReview as it travels on the wire: the request an API server sends to
 * an admission webhook and the response the webhook returns. Only `v1` is spoken (`v1beta1` was removed
 * from kube-apiserver in v1.22 and controller-runtime answers it no more).
 */

/** A JSON object as decoded from the wire. */
export type JsonObject = Record<string, unknown>;

/** `admission.k8s.io/v1`. */
export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

/** The operations an admission request carries. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** Group, version and kind (or resource) as the request names them. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** Group, version and resource (plural). */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** Who sent the request the API server admits. */
export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** `AdmissionReview.request`. */
export interface AdmissionRequest {
  /** Identifies this call; the response must carry it back. */
  uid: string;
  /** The kind of `object` / `oldObject` (the version the webhook asked for). */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** The kind of the original request, when the API server converted it (matchPolicy Equivalent). */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  /** Empty for a create with generateName (the name is given after admission). */
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  /** The new object (CREATE, UPDATE); absent for DELETE. */
  object?: JsonObject | null;
  /** The stored object (UPDATE, DELETE); absent for CREATE. */
  oldObject?: JsonObject | null;
  /** Nothing will be persisted: a side-effecting handler must not act. */
  dryRun?: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions of the request. */
  options?: JsonObject | null;
}

/** The `Status` a denied response carries (`metav1.Status` fields a webhook may set). */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** `AdmissionReview.response`. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  /** Why the request was denied (code, message, field causes). */
  status?: AdmissionStatus;
  /** A base64-encoded RFC 6902 JSON patch (mutating webhooks). */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  /** Shown to the client as `Warning` headers (kubectl prints them on stderr). */
  warnings?: string[];
}

/** A whole review: `request` going to the webhook, `response` coming back. */
export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** A review body that is not a v1 AdmissionReview with a usable request; `message` says what is wrong. */
export class MalformedReviewError extends Error {
  constructor(
    message: string,
    /** The request uid when it could be read, so the answer can still be matched to the call. */
    readonly uid = '',
  ) {
    super(message);
    this.name = 'MalformedReviewError';
  }
}

/** True for a {@link MalformedReviewError}. */
export function isMalformedReview(e: unknown): e is MalformedReviewError {
  return e instanceof MalformedReviewError;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function gvk(value: unknown, field: string, name: 'kind' | 'resource', uid: string): void {
  if (!isObject(value)) throw new MalformedReviewError(`request.${field} must be an object`, uid);
  for (const key of ['group', 'version', name]) {
    if (typeof value[key] !== 'string') {
      throw new MalformedReviewError(`request.${field}.${key} must be a string`, uid);
    }
  }
}

/**
 * Checks a decoded body is an `admission.k8s.io/v1` AdmissionReview with a request a handler can act on,
 * and returns it typed. Throws {@link MalformedReviewError} naming the first field that is wrong.
 */
export function parseAdmissionReview(body: unknown): AdmissionReview & { request: AdmissionRequest } {
  if (!isObject(body)) throw new MalformedReviewError('the body must be a JSON object (an AdmissionReview)');
  const request = body.request;
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  if (body.kind !== 'AdmissionReview') {
    throw new MalformedReviewError(`kind must be "AdmissionReview", got ${JSON.stringify(body.kind)}`, uid);
  }
  if (body.apiVersion !== ADMISSION_API_VERSION) {
    throw new MalformedReviewError(
      `apiVersion must be "${ADMISSION_API_VERSION}", got ${JSON.stringify(body.apiVersion)}`,
      uid,
    );
  }
  if (!isObject(request)) throw new MalformedReviewError('request must be an object', uid);
  if (uid === '') throw new MalformedReviewError('request.uid must be a non-empty string');
  if (typeof request.operation !== 'string' || !OPERATIONS.includes(request.operation)) {
    throw new MalformedReviewError(
      `request.operation must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(request.operation)}`,
      uid,
    );
  }
  gvk(request.kind, 'kind', 'kind', uid);
  gvk(request.resource, 'resource', 'resource', uid);
  for (const field of ['object', 'oldObject'] as const) {
    const value = request[field];
    if (value !== undefined && value !== null && !isObject(value)) {
      throw new MalformedReviewError(`request.${field} must be an object or null`, uid);
    }
  }
  if (request.operation !== 'DELETE' && request.operation !== 'CONNECT' && !isObject(request.object)) {
    throw new MalformedReviewError(`request.object is required for ${request.operation}`, uid);
  }
  if (request.operation === 'UPDATE' && !isObject(request.oldObject)) {
    throw new MalformedReviewError('request.oldObject is required for UPDATE', uid);
  }
  if (request.userInfo !== undefined && !isObject(request.userInfo)) {
    throw new MalformedReviewError('request.userInfo must be an object', uid);
  }
  return body as unknown as AdmissionReview & { request: AdmissionRequest };
}

/** Wraps a response in the review envelope the API server expects back. */
export function admissionReviewOf(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response };
}
