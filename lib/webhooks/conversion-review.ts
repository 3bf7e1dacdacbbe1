/**
 * The `apiextensions.k8s.io/v1` ConversionReview: what an API server sends a CRD's conversion webhook
 * (objects and the apiVersion wanted) and what the webhook returns (the converted objects, in order).
 */
import { MalformedReviewError, type JsonObject } from './admission-review.js';

/** `apiextensions.k8s.io/v1`. */
export const CONVERSION_API_VERSION = 'apiextensions.k8s.io/v1';

/** `ConversionReview.request`. */
export interface ConversionRequest {
  uid: string;
  /** `group/version` every object must be converted to. */
  desiredAPIVersion: string;
  /** The objects to convert, each a whole custom resource. */
  objects: JsonObject[];
}

/** `ConversionReview.response`. */
export interface ConversionResponse {
  uid: string;
  /** Same order and count as `request.objects`; empty on failure. */
  convertedObjects: JsonObject[];
  result: { status: 'Success' | 'Failure'; message?: string };
}

/** A whole conversion review. */
export interface ConversionReview {
  apiVersion: string;
  kind: 'ConversionReview';
  request?: ConversionRequest;
  response?: ConversionResponse;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks a decoded body is a v1 ConversionReview with a usable request and returns it typed; throws
 * {@link MalformedReviewError} naming the first wrong field.
 */
export function parseConversionReview(body: unknown): ConversionReview & { request: ConversionRequest } {
  if (!isObject(body)) throw new MalformedReviewError('the body must be a JSON object (a ConversionReview)');
  const request = body.request;
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  if (body.kind !== 'ConversionReview') {
    throw new MalformedReviewError(`kind must be "ConversionReview", got ${JSON.stringify(body.kind)}`, uid);
  }
  if (body.apiVersion !== CONVERSION_API_VERSION) {
    throw new MalformedReviewError(
      `apiVersion must be "${CONVERSION_API_VERSION}", got ${JSON.stringify(body.apiVersion)}`,
      uid,
    );
  }
  if (!isObject(request)) throw new MalformedReviewError('request must be an object', uid);
  if (uid === '') throw new MalformedReviewError('request.uid must be a non-empty string');
  if (typeof request.desiredAPIVersion !== 'string' || !request.desiredAPIVersion.includes('/')) {
    throw new MalformedReviewError('request.desiredAPIVersion must be a "group/version" string', uid);
  }
  if (!Array.isArray(request.objects)) throw new MalformedReviewError('request.objects must be a list', uid);
  request.objects.forEach((o, i) => {
    if (!isObject(o) || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
      throw new MalformedReviewError(`request.objects[${i}] must be an object with apiVersion and kind`, uid);
    }
  });
  return body as unknown as ConversionReview & { request: ConversionRequest };
}

/** Wraps a response in the review envelope. */
export function conversionReviewOf(response: ConversionResponse): ConversionReview {
  return { apiVersion: CONVERSION_API_VERSION, kind: 'ConversionReview', response };
}
