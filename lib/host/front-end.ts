import type { KubernetesObject } from '@kubernetes/client-node';
import { startRefusedByPlan } from '../engine/plan-loading.js';
import type { Registry } from 'prom-client';
import { ControllerCore } from '../engine/controller-core.js';
import type { IndexFunc } from '../watch/field-index.js';
import type { PassBody } from '../engine/pass-body.js';
import type { ResolvedCoreConfig } from '../engine/resolve-core-config.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import type { Store } from '../watch/store.js';
import { handleSignals, type HandleSignalsOptions } from './handle-signals.js';
import { Host } from './host.js';

/**
 * A server a front end started alone runs in its implicit host, beside its controller — the webhook server
 * of a `Framework` or `Controller` with `webhooks` (an `Operator` runs its own instead). Started beside the
 * health server and before the controller (an object the controller writes may already need it), checked
 * in `/readyz` under `name`, stopped after the controller has drained.
 * @category Engine: Framework and ControllerCore
 */
export interface HostedService {
  /** Its `/readyz` check. */
  readonly name: string;
  /** Why it does not serve yet (or any more); undefined while it does. */
  readonly notReadyReason: string | undefined;
  /** `client` and `logger` are the controller's; `signal` aborts when the front end stops. */
  start(context: { client: ObjectClient | undefined; logger: Logger; signal: AbortSignal }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What every front end (`Framework`, `Controller`, `InformerController`, and the ones built on them) is
 * to its user and to an `Operator`: the engine's members, the same way everywhere. A front end resolves
 * its config (the engine's options through `resolveCoreConfig`, plus its own fields), hands the engine its
 * {@link PassBody}, and adds only what is its own.
 * @category Engine: Framework and ControllerCore
 */
export abstract class FrontEnd<
  Obj extends KubernetesObject = KubernetesObject,
  Config extends ResolvedCoreConfig<Obj> = ResolvedCoreConfig<Obj>,
> {
  /** The configuration with every default applied. */
  readonly config: Config;
  /** The engine (for `Operator`, `plan` and other runners). */
  readonly core: ControllerCore<Obj>;
  /** The implicit host of a front end started alone (not in an `Operator`). */
  private host: Host | undefined;
  private startPromise: Promise<void> | undefined;
  /** Servers this front end runs when started alone (an `Operator` refuses a front end that has any). */
  readonly hostedServices: readonly HostedService[];
  private readonly servicesLifetime = new AbortController();

  protected constructor(
    config: Config,
    body: PassBody<Obj>,
    noun: string,
    hostedServices: readonly HostedService[] = [],
  ) {
    this.config = config;
    this.core = new ControllerCore<Obj>({ config, body, noun });
    this.hostedServices = hostedServices;
  }

  /** Controller name. */
  get name(): string {
    return this.config.name;
  }

  /** API client (`ctx.get(clientKey)` in user code); undefined without an API connection. */
  get client(): ObjectClient | undefined {
    return this.core.client;
  }

  /** The Prometheus registry holding every metric of this controller. */
  get metrics(): Registry {
    return this.core.metrics;
  }

  /** True once every watched kind's first list is in (immediately after start without `resource`). */
  get synced(): boolean {
    return this.core.synced;
  }

  /**
   * True while started, synced and not stopping: it reconciles (or stands by as a follower); started alone
   * with a health server, once that listens too.
   */
  get ready(): boolean {
    return this.core.ready && this.host?.healthPending !== true;
  }

  /** True while this replica runs workers (always, without leader election). */
  get leading(): boolean {
    return this.core.leading;
  }

  /** Base URL of the health server once listening (`http://127.0.0.1:8080`), else undefined. */
  get healthUrl(): string | undefined {
    return this.host?.healthUrl;
  }

  /**
   * The cache of a watched kind (`resource`, `owns`, `watches`), or undefined when not watched. Give
   * `apiVersion` when two watched groups have a kind of that name.
   */
  cache(kind: string, apiVersion?: string): Store | undefined {
    return this.core.cache(kind, apiVersion);
  }

  /**
   * Adds field index `name` on the shared cache of `kind` (controller-runtime's `IndexField`): `fn` gives
   * the values each object is found under. Read by it with `cache(kind)?.byIndex(name, value)` (also in
   * a `watches` mapper's context and through `cacheKey` in a pass) or with the pass client's
   * `list(ref, { matchingFields: { [name]: value } })`. Call before `start()`; the `indexes` option does
   * the same in the configuration.
   */
  indexField<T extends KubernetesObject = KubernetesObject>(
    kind: { apiVersion: string; kind: string },
    name: string,
    fn: IndexFunc<T>,
  ): void {
    this.core.indexField(kind, name, fn);
  }

  /** Runs a pass for `key` (`namespace/name`): a manual trigger, e.g. from an external system's webhook. */
  enqueue(key: string): void {
    this.core.enqueue(key);
  }

  /** Starts watching and reconciling; resolves once the caches are synced and workers run (or stand by). */
  start(): Promise<void> {
    if (this.startPromise === undefined) {
      const refused = startRefusedByPlan(`${this.core.noun} "${this.config.name}".start()`);
      if (refused !== undefined) return Promise.reject(refused);
    }
    if (this.core.inHost && this.host === undefined) return this.core.start();
    this.startPromise ??= this.startAlone();
    return this.startPromise;
  }

  /**
   * Started alone: the controller runs in an implicit host of its own — its health server, live view and
   * Lease, from its config — with the behaviour of a one-controller `Operator`'s.
   */
  private async startAlone(): Promise<void> {
    const c = this.config;
    const core = this.core;
    const host = new Host({
      logger: core.logger,
      registry: c.registry,
      healthServer: c.healthServer,
      debugPage: c.debugPage,
      leaderElection: c.leaderElection,
      history: core.history,
      readinessChecks: {
        ...core.readinessChecks(),
        ...Object.fromEntries(this.hostedServices.map((s) => [s.name, () => s.notReadyReason])),
      },
      controllers: () => [core.debugState()],
    });
    this.host = host;
    core.joinHost({
      registry: c.registry,
      informers: undefined,
      externalLeadership: host.gated,
      released: () => host.release(),
    });
    // The health server starts beside the controller, not before it: its probe thread takes ~100 ms to
    // spawn, which would otherwise delay the first reconcile by as much (/readyz says "not ready" until the
    // caches sync either way). A server that cannot start still fails start(), and stops the controller.
    const starting = (async () => {
      const context = { client: core.client, logger: core.logger, signal: this.servicesLifetime.signal };
      for (const service of this.hostedServices) await service.start(context);
      await core.start();
    })();
    try {
      await Promise.all([host.serve(), starting]);
      // The Lease's own renewals must not be fenced; every other write of the controller's client is.
      host.lead(core.client?.unfenced(), () => [core]);
    } catch (err) {
      await core.stop();
      await starting.catch(() => undefined);
      await this.stopServices();
      await host.close();
      throw err;
    }
    if (host.gated) {
      core.logger.info(`${core.noun} started`, { workers: c.workers, leaderElection: true });
    }
  }

  /**
   * Stops gracefully: takes no new work, lets in-flight passes finish (up to `gracefulShutdownMs`, then
   * aborts them through their signal), releases the Lease, closes watches and servers. Nothing keeps the
   * process alive afterwards. Idempotent. See docs/shutdown.md.
   */
  async stop(): Promise<void> {
    await this.core.stop();
    if (this.host !== undefined) await this.stopServices();
    await this.host?.close();
  }

  private async stopServices(): Promise<void> {
    this.servicesLifetime.abort(new Error(`${this.core.noun} stopped`));
    for (const service of this.hostedServices) await service.stop();
  }

  /**
   * Stops gracefully on SIGTERM/SIGINT and exits 0; a second signal exits at once. Returns a function
   * removing the handlers. See also `runUntilSignal`.
   */
  handleSignals(options: HandleSignalsOptions = {}): () => void {
    return handleSignals(this, { logger: this.core.logger, ...options }).dispose;
  }
}
