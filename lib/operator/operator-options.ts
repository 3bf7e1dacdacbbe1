import type { KubeConfig } from '@kubernetes/client-node';
import type { WarningHandler } from '../kube/api-warnings.js';
import type { Registry } from 'prom-client';
import type { DebugPageOptions, HealthServerConfig, LeaderElectionOptions } from '../engine/core-config.js';
import type { ControllerCore } from '../engine/controller-core.js';
import type { Runnable } from '../host/run-until-signal.js';
import type { Logger } from '../observability/logger.js';
import type { WebhookHostOptions } from '../webhooks/webhook-host.js';
import type { LoadedKubeConfig } from '../kube/loaded-kube-config.js';

/**
 * Anything an `Operator` runs: `Framework`, `Controller`, and later front ends. A plain `Runnable`
 * (start/stop) runs too, without sharing; a front end built on the engine exposes its `core`, through
 * which the operator shares its registry, informer cache and Lease.
 * @category Operator: many controllers
 */
export interface OperatorController extends Runnable {
  /** Name (unique within one operator; the `/readyz` check is `controller:<name>`). */
  readonly name?: string;
  /** Whether it is ready (synced, watches healthy, not stopping). Default: started. */
  readonly ready?: boolean;
  /** The engine of a front end on `ControllerCore`. */
  readonly core?: Pick<
    ControllerCore,
    'joinHost' | 'startWorkers' | 'stopWorkers' | 'notReadyReason' | 'useFence'
  > &
    Partial<Pick<ControllerCore, 'history' | 'debugState'>>;
  /** Servers a front end runs when started alone (its `webhooks`); an Operator refuses one that has any. */
  readonly hostedServices?: readonly { readonly name: string }[];
}

/** How long an `Operator` waits for a controller's `start()` by default: the cache sync timeout and 30 s. */
export const DEFAULT_MEMBER_START_TIMEOUT_MS = 150_000;

/** How long an `Operator`'s `stop()` waits for each controller's `stop()` by default. */
export const DEFAULT_MEMBER_STOP_TIMEOUT_MS = 60_000;

/**
 * Options of `operator.addController(controller, options)`.
 * @category Operator: many controllers
 */
export interface AddControllerOptions {
  /** This controller's start timeout (see `OperatorOptions.startTimeoutMs`). Default: the operator's. */
  startTimeoutMs?: number;
}

/**
 * Options of an `Operator`. Every field is optional.
 * @category Operator: many controllers
 */
export interface OperatorOptions {
  /** Name in logs, and the user agent of the operator's own client. Default `operator`. */
  name?: string;
  /**
   * API connection of the shared informer cache and the Lease. Default: `KUBECONFIG`, then
   * `~/.kube/config`, then in-cluster; without any, nothing is shared and no Lease is possible.
   */
  kubeConfig?: KubeConfig | LoadedKubeConfig;
  /** Registry for every controller's metrics, served on `/metrics`. Default: a new Registry. */
  registry?: Registry;
  /** Add the process metrics (CPU, memory, event-loop lag, heap, GC) to the registry. Default true. */
  collectDefaultMetrics?: boolean;
  /**
   * Keep `metadata.managedFields` on the objects of the shared informer cache. Default false: dropped as
   * objects arrive (see WatcherOptions.keepManagedFields).
   */
  keepManagedFields?: boolean;
  /**
   * Stream the shared informers' initial lists through watches (watch-list) where the API server serves
   * them, paged LISTs where it does not (see WatcherOptions.watchList). Default true.
   */
  watchList?: boolean;
  /**
   * What the Operator's client (its shared watches, its Lease) does with the API server's `Warning`
   * headers. Default: {@link loggingWarningHandler} — each distinct text logged once, every one counted in
   * `reconcilekit_api_warnings_total`; `false` drops them. Each controller's own client follows the
   * controller's `warningHandler`.
   */
  warningHandler?: WarningHandler | false;
  /** Logger. Default: `createLogger()`. */
  logger?: Logger;
  /**
   * One `/healthz`, `/readyz` (ready when every controller is) and `/metrics` server for all, or false.
   * Default false.
   */
  healthServer?: HealthServerConfig | false;
  /**
   * Serve the live view (`/debug/`, `/debug/api/`) of every controller on the health server, with one
   * bounded reconcile history (docs/live-view.md). `{ token }` admits non-loopback clients sending
   * `Authorization: Bearer <token>`; otherwise loopback clients naming a loopback host (`allowedHosts`
   * adds names). Default false.
   */
  debugPage?: boolean | DebugPageOptions;
  /** One Lease gating every controller's workers, or false (each controller as configured). Default false. */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * How long each controller's `start()` may take. Until it settles the controller is not ready (`/readyz`
   * names it); past this bound the operator's start rejects with a `StartTimeoutError` naming it and stops
   * (a controller added after start is stopped and stays not ready). Default 150 s
   * (`DEFAULT_MEMBER_START_TIMEOUT_MS`).
   */
  startTimeoutMs?: number;
  /** How long `stop()` waits for each controller's `stop()` before carrying on without it. Default 60 s. */
  stopTimeoutMs?: number;
  /**
   * Serve admission and conversion webhooks (docs/webhooks.md): the HTTPS webhook server starts before
   * the controllers (with a self-signed CA for `service`, renewed before expiry, and its configurations
   * written at start — or mounted certificates), stops after them, and `/readyz` waits for it. Default none.
   */
  webhooks?: WebhookHostOptions;
}
