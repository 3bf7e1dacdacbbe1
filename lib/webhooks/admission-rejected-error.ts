/** A validator's or handler's "no": the request is denied with this code, message and field causes. */

/** One field that made the request invalid (`Status.details.causes[]`, as kubectl prints them). */
export interface FieldCause {
  /** Dotted path of the field, e.g. `spec.replicas`. */
  field: string;
  /** What is wrong with it. */
  message: string;
  /** A `metav1.CauseType`; default `FieldValueInvalid`. */
  reason?: string;
}

/** What an {@link AdmissionRejectedError} carries besides its message. */
export interface AdmissionRejectedOptions {
  /** HTTP code the API server answers the client with; default 403, or 422 when there are field causes. */
  code?: number;
  /** `Status.reason`; default `Forbidden` (403) or `Invalid` (422). */
  reason?: string;
  /** The fields at fault. */
  causes?: readonly FieldCause[];
  /** Warnings returned with the rejection. */
  warnings?: readonly string[];
  cause?: unknown;
}

/**
 * Throw from a validator (or any admission handler) to deny the request: the webhook answers
 * `allowed: false` with this code, message and field causes, and the API server answers the client
 * `admission webhook "<name>" denied the request: <message>` with the same code and causes.
 */
export class AdmissionRejectedError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly causes: readonly FieldCause[];
  readonly warnings: readonly string[];

  constructor(message: string, options: AdmissionRejectedOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AdmissionRejectedError';
    const causes = options.causes ?? [];
    this.causes = causes;
    this.code = options.code ?? (causes.length > 0 ? 422 : 403);
    this.reason = options.reason ?? (this.code === 422 ? 'Invalid' : this.code === 403 ? 'Forbidden' : '');
    this.warnings = options.warnings ?? [];
  }

  /**
   * A rejection naming fields, with a message listing them as kube's field errors read
   * (`spec.replicas: Invalid value: 11: must be at most 10`).
   */
  static invalid(causes: readonly FieldCause[], options: Omit<AdmissionRejectedOptions, 'causes'> = {}) {
    const message = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
    return new AdmissionRejectedError(message, { ...options, causes });
  }
}

/** True when `e`, or an error in its `cause` chain, is an {@link AdmissionRejectedError}. */
export function isAdmissionRejected(e: unknown): boolean {
  return admissionRejectionOf(e) !== undefined;
}

/** The {@link AdmissionRejectedError} in `e`'s cause chain, if any. */
export function admissionRejectionOf(e: unknown): AdmissionRejectedError | undefined {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 16; cur = cur.cause, depth++) {
    if (cur instanceof AdmissionRejectedError) return cur;
  }
  return undefined;
}
