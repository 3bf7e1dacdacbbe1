/**
 * Helpers for operator tests: a test environment (embedded server or kube-apiserver), `waitFor`, conditions, Events, manifests.
 *
 * @module reconcilekit/testing
 */
export {
  startTestEnvironment,
  testBackendFromEnv,
  TEST_BACKEND_ENV,
  type TestBackend,
  type TestEnvironment,
  type TestEnvironmentOptions,
} from './test-environment.js';
export {
  startKubeApiServer,
  reservePort,
  KubeApiServerStartError,
  isKubeApiServerStartError,
  DEFAULT_KUBE_APISERVER_START_TIMEOUT_MS,
  KUBE_APISERVER_ADMIN_USER,
  type KubeApiServer,
  type KubeApiServerOptions,
} from './kube-apiserver-backend.js';
export {
  resolveEnvtestAssets,
  EnvtestAssetsError,
  isEnvtestAssetsError,
  KUBEBUILDER_ASSETS_ENV,
  type EnvtestAssets,
} from './envtest-assets.js';
export {
  waitFor,
  WaitTimeoutError,
  isWaitTimeout,
  DEFAULT_WAIT_TIMEOUT_MS,
  DEFAULT_WAIT_INTERVAL_MS,
  type WaitForOptions,
} from './wait-for.js';
export { waitForCondition, type WaitForConditionOptions } from './wait-for-condition.js';
export {
  collectEvents,
  EventCollector,
  DEFAULT_EVENT_POLL_INTERVAL_MS,
  type CollectEventsOptions,
} from './event-collector.js';
export { installCrds, DEFAULT_CRD_ESTABLISHED_TIMEOUT_MS, type InstallCrdsOptions } from './install-crds.js';
export {
  applyManifests,
  readManifests,
  parseManifests,
  ManifestParseError,
  type ApplyManifestsOptions,
} from './manifests.js';
