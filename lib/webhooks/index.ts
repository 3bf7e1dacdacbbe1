/**
 * Admission and conversion webhooks served by the operator: handler factories (`defaulter`, `validator`,
 * `converter`, `admissionHandler`), the HTTPS `WebhookServer`, and the v1 review types.
 *
 * @module reconcilekit/webhooks
 */
export {
  ADMISSION_API_VERSION,
  MalformedReviewError,
  isMalformedReview,
  parseAdmissionReview,
  admissionReviewOf,
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type AdmissionStatus,
  type AdmissionUserInfo,
  type GroupVersionKind,
  type GroupVersionResource,
} from './admission-review.js';
export {
  CONVERSION_API_VERSION,
  parseConversionReview,
  conversionReviewOf,
  type ConversionRequest,
  type ConversionResponse,
  type ConversionReview,
} from './conversion-review.js';
export { jsonPatchDiff, type JsonPatchOperation } from './json-patch-diff.js';
export {
  AdmissionRejectedError,
  isAdmissionRejected,
  admissionRejectionOf,
  type AdmissionRejectedOptions,
  type FieldCause,
} from './admission-rejected-error.js';
export {
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS,
  type AdmissionContext,
  type AdmissionHandlerOptions,
  type AdmissionRegistration,
  type ConversionRegistration,
  type LabelSelector,
  type WebhookHandler,
  type WebhookKind,
  type WebhookRule,
} from './webhook-handler.js';
export {
  admissionHandler,
  type AdmissionVerdict,
  type RawAdmissionHandlerOptions,
} from './admission-handler.js';
export { defaulter, type DefaulterOptions } from './defaulter.js';
export { validator, type ValidatorOptions, type ValidationResult } from './validator.js';
export {
  converter,
  type ConverterOptions,
  type HubConverterOptions,
  type PairwiseConverterOptions,
  type SpokeConversion,
} from './converter.js';
export {
  WebhookServer,
  WebhookConfigError,
  isWebhookConfigError,
  parseGoDuration,
  DEFAULT_MAX_REVIEW_BYTES,
  DEFAULT_WEBHOOK_PORT,
  DEFAULT_WEBHOOK_HOST,
  DEFAULT_HANDLER_TIMEOUT_MS,
  type ServingCertificate,
  type WebhookServerOptions,
} from './webhook-server.js';
export {
  SelfSignedCertificates,
  MountedCertificates,
  serviceDnsNames,
  certificateExpiry,
  DEFAULT_SERVING_CERTIFICATE_VALIDITY_MS,
  DEFAULT_ROTATE_BEFORE_MS,
  DEFAULT_CERTIFICATE_POLL_MS,
  type CertificateSource,
  type Issuer,
  type SelfSignedCertificatesOptions,
  type MountedCertificatesOptions,
} from './serving-certificates.js';
export { WebhookCertificateIssuer, DEFAULT_CA_VALIDITY_MS } from './certificate-issuer.js';
export {
  webhookManifests,
  registerWebhooks,
  WEBHOOK_FIELD_MANAGER,
  type WebhookEndpointTarget,
  type WebhookManifestOptions,
  type WebhookManifests,
} from './webhook-manifests.js';
export { WebhookHost, DEV_WEBHOOKS_ENV, type WebhookHostOptions } from './webhook-host.js';
