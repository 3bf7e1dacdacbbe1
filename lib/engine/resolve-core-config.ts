import type { KubernetesObject } from '@kubernetes/client-node';
import {
  DEFAULT_MAX_EVENT_LOOP_BLOCK_MS,
  type HealthCheck,
  type ProbeThread,
} from '../observability/health-server.js';
import type { Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { ExponentialRateLimiter, type RateLimiter } from '../queue/rate-limiter.js';
import { WORK_QUEUE_ORDERS, type WorkQueueOrder } from '../queue/priority.js';
import { defaultBackOffFactory, type BackOffFactory } from '../util/backoff.js';
import { defaultHealthHost } from './default-health-host.js';
import {
  DEFAULT_REQUEUE_BASE_DELAY_MS,
  DEFAULT_REQUEUE_FACTOR,
  DEFAULT_REQUEUE_MAX_DELAY_MS,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  DEFAULT_GRACEFUL_SHUTDOWN_MS,
  DEFAULT_HEALTH_PORT,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_MIN_RECONCILE_INTERVAL_MS,
  DEFAULT_PAUSE_ANNOTATIONS,
  DEFAULT_RECONCILE_TIMEOUT_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RESYNC_PERIOD_MS,
  DEFAULT_RETRY_PERIOD_MS,
  DEFAULT_WORKERS,
} from './defaults.js';
import { DEBUG_PAGE_ENV } from '../debug/history-recorder.js';
import { DEFAULT_ERROR_CONDITION_TYPE } from './error-condition.js';
import type { InformerCache } from '../watch/informer-cache.js';
import type {
  CoreConfig,
  DebugPageOptions,
  FrameworkResource,
  LeaderElectionOptions,
  OwnedResource,
  FieldIndexSpec,
} from './core-config.js';
import type { RetryPolicy } from './retry-policy.js';
import type { Predicate } from './predicates.js';
import type { WatchSource } from './watch-source.js';
import { resolveSharding, type ResolvedShardingOptions } from '../sharding/sharding-options.js';
import type { WarningHandler } from '../kube/api-warnings.js';

/**
 * A {@link CoreConfig} with every default applied and every field checked.
 * @category Engine: Framework and ControllerCore
 */
export interface ResolvedCoreConfig<Obj extends KubernetesObject = KubernetesObject> {
  name: string;
  kubeConfig: CoreConfig['kubeConfig'];
  resource: FrameworkResource | undefined;
  crd: KubernetesObject | undefined;
  owns: readonly OwnedResource[];
  watches: readonly WatchSource[];
  indexes: readonly FieldIndexSpec[];
  predicates: readonly Predicate<Obj>[];
  workers: number;
  minReconcileIntervalMs: number;
  queueOrder: WorkQueueOrder;
  resyncPeriodMs: number;
  finalizer: string | false;
  pauseAnnotations: readonly string[];
  backOffFactory: BackOffFactory;
  rateLimiter: RateLimiter;
  logger: Logger;
  registry: Registry;
  leaderElection: (Required<Omit<LeaderElectionOptions, 'identity'>> & { identity?: string }) | false;
  /** The sharding option with its defaults (undefined: not sharded). */
  sharding: ResolvedShardingOptions | undefined;
  collectDefaultMetrics: boolean;
  healthServer:
    | {
        host: string;
        port: number;
        readinessChecks: Record<string, HealthCheck>;
        livenessChecks: Record<string, HealthCheck>;
        probeThread: ProbeThread;
        maxEventLoopBlockMs: number;
      }
    | false;
  debugPage: DebugPageOptions | false;
  reconcileTimeoutMs: number;
  gracefulShutdownMs: number;
  cacheSyncTimeoutMs: number;
  events: boolean | undefined;
  errorCondition: { type: string } | false;
  informers: InformerCache | undefined;
  retryPolicy: RetryPolicy | undefined;
  /** true: every read of the context client is live; else the kinds read live (others from the cache). */
  liveReads: true | readonly { apiVersion: string; kind: string }[];
  keepManagedFields: boolean;
  watchList: boolean;
  /** undefined: the default handler (logged once per text, counted). */
  warningHandler: WarningHandler | false | undefined;
}

/**
 * How a front end's constructor is written (error messages) and its finalizer default.
 * @category Engine: Framework and ControllerCore
 */
export interface CoreConfigUsage {
  /** E.g. `new Framework({ name, resourceSets, ... })`. */
  usage: string;
  /** The finalizer when `config.finalizer` is not given. */
  defaultFinalizer: (name: string) => string | false;
}

// A finalizer is a qualified name: optional DNS prefix, '/', then a name of ≤ 63 characters.
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export function fail(message: string): never {
  throw new InvalidConfigError(message);
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') fail(`${field} must be a non-empty string`);
  return value;
}

function duration(value: unknown, field: string, fallback: number, allowZero = true): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    fail(
      `${field} must be a finite number of milliseconds ${allowZero ? '>= 0' : '> 0'}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function resourceRef(value: unknown, field: string): FrameworkResource {
  if (!isObject(value))
    fail(
      `${field} must be an object with apiVersion and kind (e.g. { apiVersion: 'v1', kind: 'ConfigMap' })`,
    );
  nonEmptyString(value.apiVersion, `${field}.apiVersion`);
  nonEmptyString(value.kind, `${field}.kind`);
  for (const key of ['plural', 'namespace', 'labelSelector', 'fieldSelector'] as const) {
    if (value[key] !== undefined) nonEmptyString(value[key], `${field}.${key}`);
  }
  const namespaces = value.namespaces;
  if (namespaces !== undefined) {
    if (value.namespace !== undefined) {
      fail(`${field}: give namespace (one) or namespaces (several), not both`);
    }
    if (!Array.isArray(namespaces) || namespaces.length === 0) {
      fail(`${field}.namespaces must be a non-empty array of namespace names, e.g. ['team-a', 'team-b']`);
    }
    namespaces.forEach((ns: unknown, i) => nonEmptyString(ns, `${field}.namespaces[${i}]`));
    if (new Set(namespaces).size !== namespaces.length) {
      fail(`${field}.namespaces names a namespace twice: ${JSON.stringify(namespaces)}`);
    }
  }
  return value as unknown as FrameworkResource;
}

function isLogger(value: unknown): value is Logger {
  return (
    isObject(value) &&
    ['debug', 'info', 'warn', 'error', 'child'].every((method) => typeof value[method] === 'function')
  );
}

/**
 * Checks the generic part of a front end's `config` and applies every default (see `defaults.ts`).
 * Throws {@link InvalidConfigError} naming the field and what to change.
 * @category Engine: Framework and ControllerCore
 */
export function resolveCoreConfig<Obj extends KubernetesObject = KubernetesObject>(
  config: CoreConfig<Obj>,
  how: CoreConfigUsage,
): ResolvedCoreConfig<Obj> {
  if (!isObject(config)) fail(`config must be an object: ${how.usage}`);
  const c = config;
  const name = nonEmptyString(c.name, 'config.name');
  if (name.length > 63 || !QUALIFIED_NAME.test(name) || name.includes('/')) {
    fail(
      `config.name must be at most 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric; got "${name}"`,
    );
  }

  if (
    c.kubeConfig !== undefined &&
    (!isObject(c.kubeConfig) || typeof c.kubeConfig.getCurrentCluster !== 'function')
  ) {
    fail(
      'config.kubeConfig must be a @kubernetes/client-node KubeConfig or what readKubeConfig() returns (or left out to load KUBECONFIG / in-cluster)',
    );
  }
  const resource = c.resource === undefined ? undefined : resourceRef(c.resource, 'config.resource');

  let crd: KubernetesObject | undefined;
  if (c.crd !== undefined) {
    if (!isObject(c.crd) || c.crd.kind !== 'CustomResourceDefinition' || !isObject(c.crd.metadata)) {
      fail(
        'config.crd must be an apiextensions.k8s.io/v1 CustomResourceDefinition object with metadata.name',
      );
    }
    nonEmptyString(c.crd.metadata.name, 'config.crd.metadata.name');
    crd = c.crd;
  }

  let owns: readonly OwnedResource[] = [];
  if (c.owns !== undefined) {
    if (!Array.isArray(c.owns)) fail('config.owns must be an array of { apiVersion, kind }');
    if (c.owns.length > 0 && resource === undefined) {
      fail('config.owns needs config.resource: owned objects are mapped to their owner of that kind');
    }
    owns = c.owns.map((owned, i) => {
      const ref = resourceRef(owned, `config.owns[${i}]`);
      flag((owned as Record<string, unknown>).metadataOnly, `config.owns[${i}].metadataOnly`, false);
      return ref;
    });
  }

  const workers = c.workers ?? DEFAULT_WORKERS;
  if (!Number.isInteger(workers) || workers < 1)
    fail(`config.workers must be an integer >= 1; got ${String(workers)}`);

  let finalizer: string | false;
  if (c.finalizer === false) finalizer = false;
  else if (c.finalizer === undefined) finalizer = how.defaultFinalizer(name);
  else {
    finalizer = nonEmptyString(c.finalizer, 'config.finalizer');
    if (!QUALIFIED_NAME.test(finalizer)) {
      fail(
        `config.finalizer must be a qualified name like "example.com/my-operator" (or false); got "${finalizer}"`,
      );
    }
  }

  let pauseAnnotations: readonly string[] = DEFAULT_PAUSE_ANNOTATIONS;
  if (c.pauseAnnotations !== undefined) {
    if (!Array.isArray(c.pauseAnnotations))
      fail('config.pauseAnnotations must be an array of annotation keys');
    pauseAnnotations = Object.freeze(
      c.pauseAnnotations.map((key, i) => nonEmptyString(key, `config.pauseAnnotations[${i}]`)),
    );
  }

  const queueOrder = c.queueOrder ?? 'priority';
  if (!WORK_QUEUE_ORDERS.includes(queueOrder)) {
    fail(`config.queueOrder must be 'priority' or 'fifo'; got ${JSON.stringify(queueOrder)}`);
  }
  if (c.backOffFactory !== undefined && typeof c.backOffFactory !== 'function') {
    fail('config.backOffFactory must be a function returning exponential-backoff options');
  }
  const rateLimiter =
    c.rateLimiter ??
    new ExponentialRateLimiter({
      baseDelayMs: DEFAULT_REQUEUE_BASE_DELAY_MS,
      factor: DEFAULT_REQUEUE_FACTOR,
      maxDelayMs: DEFAULT_REQUEUE_MAX_DELAY_MS,
    });
  if (
    !isObject(rateLimiter) ||
    typeof rateLimiter.when !== 'function' ||
    typeof rateLimiter.forget !== 'function'
  ) {
    fail('config.rateLimiter must implement when(key), forget(key) and numRequeues(key)');
  }
  if (c.logger !== undefined && !isLogger(c.logger)) {
    fail('config.logger must have debug, info, warn, error and child methods (createLogger() gives one)');
  }
  const registry: unknown = c.registry;
  if (registry !== undefined && !(registry instanceof promClient().Registry)) {
    if (!isObject(registry) || typeof registry.metrics !== 'function') {
      fail('config.registry must be a prom-client Registry');
    }
  }

  let leaderElection: ResolvedCoreConfig['leaderElection'] = false;
  if (c.leaderElection !== undefined && c.leaderElection !== false) {
    const le = c.leaderElection as unknown;
    if (!isObject(le)) fail('config.leaderElection must be { leaseName, namespace } or false');
    const leaseDurationMs = duration(
      le.leaseDurationMs,
      'config.leaderElection.leaseDurationMs',
      DEFAULT_LEASE_DURATION_MS,
      false,
    );
    const renewDeadlineMs = duration(
      le.renewDeadlineMs,
      'config.leaderElection.renewDeadlineMs',
      DEFAULT_RENEW_DEADLINE_MS,
      false,
    );
    const retryPeriodMs = duration(
      le.retryPeriodMs,
      'config.leaderElection.retryPeriodMs',
      DEFAULT_RETRY_PERIOD_MS,
      false,
    );
    if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > retryPeriodMs)) {
      fail('config.leaderElection needs leaseDurationMs > renewDeadlineMs > retryPeriodMs');
    }
    leaderElection = {
      leaseName: nonEmptyString(le.leaseName, 'config.leaderElection.leaseName'),
      namespace: nonEmptyString(le.namespace, 'config.leaderElection.namespace'),
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
    };
    if (le.identity !== undefined)
      leaderElection.identity = nonEmptyString(le.identity, 'config.leaderElection.identity');
  }

  const sharding = resolveSharding(c.sharding, name);
  if (sharding !== undefined) {
    if (leaderElection !== false) {
      fail(
        'config.sharding and config.leaderElection exclude each other: a sharded controller runs on every replica (each on its own objects); drop leaderElection',
      );
    }
    if (resource === undefined)
      fail('config.sharding needs config.resource (the kind whose objects are sharded)');
    if (resource.namespaces !== undefined) {
      fail('config.sharding works with one namespace (resource.namespace) or all: drop resource.namespaces');
    }
  }

  let healthServer: ResolvedCoreConfig['healthServer'] = false;
  if (c.healthServer !== undefined && c.healthServer !== false) {
    const hs = c.healthServer as unknown;
    if (!isObject(hs)) fail('config.healthServer must be { host?, port? } or false');
    const port = hs.port ?? DEFAULT_HEALTH_PORT;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
      fail(
        `config.healthServer.port must be an integer 0..65535 (0 = any free port); got ${JSON.stringify(port)}`,
      );
    }
    const host =
      hs.host === undefined ? defaultHealthHost() : nonEmptyString(hs.host, 'config.healthServer.host');
    healthServer = {
      host,
      port,
      readinessChecks: checks(hs.readinessChecks, 'config.healthServer.readinessChecks'),
      livenessChecks: checks(hs.livenessChecks, 'config.healthServer.livenessChecks'),
      probeThread: probeThread(hs.probeThread),
      maxEventLoopBlockMs: duration(
        hs.maxEventLoopBlockMs,
        'config.healthServer.maxEventLoopBlockMs',
        DEFAULT_MAX_EVENT_LOOP_BLOCK_MS,
        false,
      ),
    };
  }

  let debugPage: ResolvedCoreConfig['debugPage'] = false;
  const debugPageFromEnv = c.debugPage === undefined && process.env[DEBUG_PAGE_ENV] === '1';
  if (c.debugPage === true || debugPageFromEnv) debugPage = {};
  else if (c.debugPage !== undefined && c.debugPage !== false) {
    const dp = c.debugPage as unknown;
    if (!isObject(dp)) fail('config.debugPage must be true, false or { token?, allowedHosts? }');
    debugPage = dp.token === undefined ? {} : { token: nonEmptyString(dp.token, 'config.debugPage.token') };
    if (dp.allowedHosts !== undefined) {
      if (!Array.isArray(dp.allowedHosts) || dp.allowedHosts.some((h) => typeof h !== 'string' || h === '')) {
        fail('config.debugPage.allowedHosts must be a list of host names, e.g. ["devbox.local"]');
      }
      debugPage.allowedHosts = (dp.allowedHosts as string[]).map((h) => h.toLowerCase());
    }
  }

  // `reconcilekit dev` turns the live view on; an operator that configured no health server still gets one
  // to show it on (loopback, any free port, its URL logged), rather than a live view served nowhere.
  if (debugPageFromEnv && c.healthServer === undefined) {
    healthServer = {
      host: '127.0.0.1',
      port: 0,
      readinessChecks: {},
      livenessChecks: {},
      probeThread: 'worker',
      maxEventLoopBlockMs: DEFAULT_MAX_EVENT_LOOP_BLOCK_MS,
    };
  }

  if (c.events !== undefined && typeof c.events !== 'boolean') fail('config.events must be a boolean');

  let errorCondition: { type: string } | false = { type: DEFAULT_ERROR_CONDITION_TYPE };
  if (c.errorCondition === false) errorCondition = false;
  else if (c.errorCondition !== undefined) {
    const ec = c.errorCondition as unknown;
    if (!isObject(ec)) fail('config.errorCondition must be { type? } or false');
    if (ec.type !== undefined)
      errorCondition = { type: nonEmptyString(ec.type, 'config.errorCondition.type') };
  }

  const informers: unknown = c.informers;
  if (
    informers !== undefined &&
    (!isObject(informers) ||
      typeof informers.acquire !== 'function' ||
      typeof informers.release !== 'function')
  ) {
    fail('config.informers must be an InformerCache (new InformerCache({ client }))');
  }
  const liveReads = resolveLiveReads(c.liveReads);
  if (c.retryPolicy !== undefined && typeof c.retryPolicy !== 'function') {
    fail(
      'config.retryPolicy must be a function (error, attempt) => { retry, delayMs }, e.g. exponentialBackoffRetryPolicy(1000, 5)',
    );
  }

  return {
    name,
    kubeConfig: c.kubeConfig,
    resource,
    crd,
    owns,
    watches: watchSources(c.watches),
    indexes: indexSpecs(c.indexes),
    predicates: predicateList(c.predicates, 'config.predicates') as readonly Predicate<Obj>[],
    workers,
    minReconcileIntervalMs: duration(
      c.minReconcileIntervalMs,
      'config.minReconcileIntervalMs',
      DEFAULT_MIN_RECONCILE_INTERVAL_MS,
    ),
    queueOrder,
    resyncPeriodMs: duration(c.resyncPeriodMs, 'config.resyncPeriodMs', DEFAULT_RESYNC_PERIOD_MS),
    finalizer,
    pauseAnnotations,
    backOffFactory: c.backOffFactory ?? defaultBackOffFactory,
    rateLimiter,
    logger: c.logger ?? createLogger(),
    registry: c.registry ?? new (promClient().Registry)(),
    leaderElection,
    sharding,
    healthServer,
    debugPage,
    collectDefaultMetrics: flag(c.collectDefaultMetrics, 'config.collectDefaultMetrics', true),
    reconcileTimeoutMs: duration(
      c.reconcileTimeoutMs,
      'config.reconcileTimeoutMs',
      DEFAULT_RECONCILE_TIMEOUT_MS,
    ),
    gracefulShutdownMs: duration(
      c.gracefulShutdownMs,
      'config.gracefulShutdownMs',
      DEFAULT_GRACEFUL_SHUTDOWN_MS,
    ),
    cacheSyncTimeoutMs: duration(
      c.cacheSyncTimeoutMs,
      'config.cacheSyncTimeoutMs',
      DEFAULT_CACHE_SYNC_TIMEOUT_MS,
    ),
    events: c.events,
    errorCondition,
    informers: c.informers,
    retryPolicy: c.retryPolicy,
    liveReads,
    keepManagedFields: flag(c.keepManagedFields, 'config.keepManagedFields', false),
    watchList: flag(c.watchList, 'config.watchList', true),
    warningHandler: resolveWarningHandler(c.warningHandler),
  };
}

function resolveWarningHandler(value: unknown): WarningHandler | false | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value !== 'function') {
    fail(`config.warningHandler must be a function (warning, request) => void or false, got ${typeof value}`);
  }
  return value as WarningHandler;
}

function resolveLiveReads(value: unknown): ResolvedCoreConfig['liveReads'] {
  if (value === undefined || value === false) return [];
  if (value === true) return true;
  if (!Array.isArray(value)) {
    fail(
      `config.liveReads must be true, false or a list of kinds ({ apiVersion, kind }); got ${JSON.stringify(value)}`,
    );
  }
  return value.map((kind: unknown, i) => {
    if (!isObject(kind) || typeof kind.apiVersion !== 'string' || typeof kind.kind !== 'string') {
      fail(
        `config.liveReads[${i}] must be { apiVersion, kind } (e.g. { apiVersion: 'v1', kind: 'Secret' }); got ${JSON.stringify(kind)}`,
      );
    }
    return { apiVersion: kind.apiVersion, kind: kind.kind };
  });
}

/** The engine's own check names: a user check of the same name would hide one. */
const ENGINE_CHECKS = [
  'cache-synced',
  'not-stopping',
  'watches-healthy',
  'workers-stuck',
  'stuck-deletions',
  'controllers',
];

function checks(value: unknown, field: string): Record<string, HealthCheck> {
  if (value === undefined) return {};
  if (!isObject(value)) fail(`${field} must be an object of name → () => undefined | reason`);
  for (const [name, check] of Object.entries(value)) {
    if (typeof check !== 'function')
      fail(`${field}.${name} must be a function returning undefined or a reason`);
    if (ENGINE_CHECKS.includes(name))
      fail(`${field}.${name}: the engine has a check of that name; pick another`);
  }
  return value as Record<string, HealthCheck>;
}

function probeThread(value: unknown): ProbeThread {
  if (value === undefined) return 'worker';
  if (value !== 'worker' && value !== 'main') {
    fail(`config.healthServer.probeThread must be 'worker' or 'main'; got ${JSON.stringify(value)}`);
  }
  return value;
}

function flag(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`${field} must be true or false; got ${JSON.stringify(value)}`);
  return value;
}

function predicateList(value: unknown, field: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    fail(`${field} must be an array of predicates, e.g. [predicates.generationChanged()]`);
  value.forEach((p, i) => {
    if (typeof p !== 'function') fail(`${field}[${i}] must be a predicate function (event) => boolean`);
  });
  return value as unknown[];
}

function watchSources(value: unknown): readonly WatchSource[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail('config.watches must be an array of { apiVersion, kind, map(obj) => keys }');
  }
  return value.map((source: unknown, i) => {
    const field = `config.watches[${i}]`;
    resourceRef(source, field);
    const s = source as Record<string, unknown>;
    if (typeof s.map !== 'function') {
      fail(
        `${field}.map is required: a function (obj) => keys of the objects to reconcile, e.g. (cm) => [\`\${cm.metadata.namespace}/\${cm.metadata.labels.widget}\`]`,
      );
    }
    predicateList(s.predicates, `${field}.predicates`);
    flag(s.metadataOnly, `${field}.metadataOnly`, false);
    return source as WatchSource;
  });
}

/** `config.indexes`, checked: each `{ apiVersion, kind, name, fn }`. */
function indexSpecs(raw: unknown): readonly FieldIndexSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) fail('config.indexes must be an array of { apiVersion, kind, name, fn }');
  return Object.freeze(
    raw.map((entry: unknown, i): FieldIndexSpec => {
      if (!isObject(entry)) fail(`config.indexes[${i}] must be { apiVersion, kind, name, fn }`);
      const { apiVersion, kind, name, fn } = entry as Partial<FieldIndexSpec>;
      if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
        fail(
          `config.indexes[${i}] needs apiVersion and kind, e.g. { apiVersion: 'v1', kind: 'Secret', name, fn }`,
        );
      }
      if (typeof name !== 'string' || name === '')
        fail(`config.indexes[${i}].name must be a non-empty string`);
      if (typeof fn !== 'function') {
        fail(`config.indexes[${i}].fn must be a function (obj) => string[] (the values obj is found under)`);
      }
      return { apiVersion, kind, name, fn };
    }),
  );
}
