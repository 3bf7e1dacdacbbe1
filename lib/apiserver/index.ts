/**
 * The embedded Kubernetes-compatible API server: `startApiServer` and its options.
 *
 * @module reconcilekit/apiserver
 */
export {
  startApiServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  DEFAULT_BOOKMARK_INTERVAL_MS,
  DEFAULT_NAMESPACES,
  DEFAULT_TLS_HOSTS,
  type ApiServer,
  type ApiServerOptions,
  type ApiServerTlsOptions,
} from './start-api-server.js';
export {
  CertificateAuthority,
  DEFAULT_CERTIFICATE_VALIDITY_MS,
  type CertificateAndKey,
  type IssueOptions,
} from './tls/certificate-authority.js';
export type { AuthenticationRequest, ClientIdentity } from './tls/authentication.js';
export {
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT,
} from './in-flight-limit.js';
export { ApiServerConfigError, isApiServerConfigError, isLoopbackHost } from './server-config-error.js';
export { Faults, type FaultRule, type FaultHandle, type FaultTarget } from './faults.js';
export type { ApiServerLog } from './core.js';
export type { WebhookServiceResolver } from './webhooks/webhook-endpoint.js';
export type { Clock } from './clock.js';
export { DEFAULT_MAX_BODY_BYTES } from './http-io.js';
export { DEFAULT_WATCH_BUFFER_BYTES } from './watch-stream.js';
export { DEFAULT_WATCH_TOTAL_BUFFER_BYTES } from './watch-hub.js';
export {
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ServerLimitOptions,
} from './server-limits.js';
export { PersistenceError, isPersistenceError, DEFAULT_COMPACT_MIN_LOG_BYTES } from './journal.js';
export { DEFAULT_WATCH_HISTORY_SIZE } from './store.js';
export { buildKubeconfig, KUBECONFIG_CONTEXT_NAME, type KubeconfigTls } from './kubeconfig.js';
export {
  ApiError as StatusError,
  isApiError as isStatusError,
  type KubeStatus,
  type StatusDetails,
} from './status.js';
// The server's error under its earlier name; `ApiError` in `reconcilekit` is the client's error.
export { ApiError, isApiError } from './status.js';
export {
  admitCustomObject,
  checkCustomResourceDefinition,
  checkSchemaDefaults,
  type CustomObjectAdmission,
} from './custom-object-check.js';
export type { FieldCause } from './field-cause.js';
export type { JSONSchemaProps, ValidationRule } from './schema/json-schema-props.js';
export type { JsonObject } from './patch/json-value.js';
