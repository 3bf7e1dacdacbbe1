import { setMaxListeners } from 'node:events';
import { addProcessMetrics } from '../observability/process-metrics.js';
import type { Registry } from 'prom-client';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { errorMessage } from '../errors/error-message.js';
import { MemberStartError, StartTimeoutError } from '../errors/member-start-error.js';
import { startRefusedByPlan } from '../engine/plan-loading.js';
import { resolveCoreConfig, type ResolvedCoreConfig } from '../engine/resolve-core-config.js';
import { handleSignals, type HandleSignalsOptions } from '../host/handle-signals.js';
import { makeClient } from '../kube/make-client.js';
import { loggingWarningHandler } from '../kube/api-warnings.js';
import type { ObjectClient } from '../kube/object-client.js';
import { WebhookHost } from '../webhooks/webhook-host.js';
import { Host } from '../host/host.js';
import { HistoryRecorder } from '../debug/history-recorder.js';
import type { DebugControllerState } from '../debug/debug-routes.js';
import type { Logger } from '../observability/logger.js';
import { InformerCache } from '../watch/informer-cache.js';
import {
  DEFAULT_MEMBER_START_TIMEOUT_MS,
  DEFAULT_MEMBER_STOP_TIMEOUT_MS,
  type AddControllerOptions,
  type OperatorController,
  type OperatorOptions,
} from './operator-options.js';

interface Member {
  controller: OperatorController;
  name: string;
  startTimeoutMs: number;
  /** added: not asked to start; starting: start() not settled; started; failed: rejected, threw or timed out. */
  state: 'added' | 'starting' | 'started' | 'failed';
  /** When start() was called (ms since the epoch). */
  startingSince: number;
  /** Why it failed to start (state failed). */
  failure: string | undefined;
  started: Promise<void> | undefined;
}

/**
 * Runs several controllers — `Framework`, `Controller`, later front ends — in one process with one
 * health server (`/readyz` ready when all are), one metrics registry, one informer cache (controllers
 * watching the same kind and scope share one watch) and one Lease gating every controller's workers.
 * The first controller that fails to start stops the others, and `start()`/`run()` reject with its error.
 * See docs/operator.md.
 * @category Operator: many controllers
 */
export class Operator {
  /** The shared informer cache (undefined without an API connection). */
  readonly informers: InformerCache | undefined;
  private readonly settings: ResolvedCoreConfig;
  private readonly logger: Logger;
  private readonly client: ObjectClient | undefined;
  private readonly webhookOptions: OperatorOptions['webhooks'];
  private webhookHost: WebhookHost | undefined;
  private readonly members: Member[] = [];
  private readonly lifetime = new AbortController();
  /** The health server, the live view and the Lease of every controller. */
  private readonly host: Host;
  /** The live view's history, shared by every controller (debugPage). */
  private readonly history: HistoryRecorder | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private stopped: (() => void) | undefined;
  private readonly done: Promise<void>;
  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;

  constructor(options: OperatorOptions = {}) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError('new Operator(options): options must be an object (or left out)');
    }
    // The same checks and defaults as a controller's options of the same names.
    this.settings = resolveCoreConfig(
      {
        name: options.name ?? 'operator',
        ...(options.kubeConfig === undefined ? {} : { kubeConfig: options.kubeConfig }),
        ...(options.registry === undefined ? {} : { registry: options.registry }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
        ...(options.healthServer === undefined ? {} : { healthServer: options.healthServer }),
        ...(options.debugPage === undefined ? {} : { debugPage: options.debugPage }),
        ...(options.collectDefaultMetrics === undefined
          ? {}
          : { collectDefaultMetrics: options.collectDefaultMetrics }),
        leaderElection: options.leaderElection ?? false,
        finalizer: false,
      },
      {
        usage: 'new Operator({ healthServer?, leaderElection?, registry?, logger? })',
        defaultFinalizer: () => false,
      },
    );
    this.startTimeoutMs = positiveMs(
      options.startTimeoutMs,
      'new Operator(options)',
      'startTimeoutMs',
      DEFAULT_MEMBER_START_TIMEOUT_MS,
    );
    this.stopTimeoutMs = positiveMs(
      options.stopTimeoutMs,
      'new Operator(options)',
      'stopTimeoutMs',
      DEFAULT_MEMBER_STOP_TIMEOUT_MS,
    );
    if (this.settings.debugPage !== false) this.history = new HistoryRecorder();
    setMaxListeners(0, this.lifetime.signal);
    if (this.settings.collectDefaultMetrics) addProcessMetrics(this.settings.registry);
    this.logger = this.settings.logger.child({ operator: this.settings.name });
    if (
      options.warningHandler !== undefined &&
      options.warningHandler !== false &&
      typeof options.warningHandler !== 'function'
    ) {
      throw new InvalidConfigError(
        `new Operator(options): warningHandler must be a function (warning, request) => void or false, got ${typeof options.warningHandler}`,
      );
    }
    this.client = makeClient(
      this.settings.name,
      options.kubeConfig,
      this.settings.leaderElection !== false,
      options.warningHandler === false
        ? undefined
        : (options.warningHandler ??
            loggingWarningHandler({ logger: this.logger, registry: this.settings.registry })),
    );
    if (this.client !== undefined) {
      this.informers = new InformerCache({
        client: this.client,
        logger: this.logger,
        registry: this.settings.registry,
        keepManagedFields: options.keepManagedFields === true,
        watchList: options.watchList !== false,
      });
    }
    this.webhookOptions = options.webhooks;
    this.host = new Host({
      logger: this.logger,
      registry: this.settings.registry,
      healthServer: this.settings.healthServer,
      debugPage: this.settings.debugPage,
      leaderElection: this.settings.leaderElection,
      history: this.history,
      readinessChecks: {
        'not-stopping': () => (this.stopPromise === undefined ? undefined : 'shutting down'),
        controllers: () => this.notReady(),
        ...(this.webhookOptions === undefined
          ? {}
          : { webhooks: () => this.webhookHost?.notReadyReason ?? 'webhook server not started' }),
      },
      controllers: () => this.debugStates(),
    });
    this.done = new Promise<void>((resolve) => {
      this.stopped = resolve;
    });
  }

  /** The webhook server, once started (undefined without `webhooks`). */
  get webhooks(): WebhookHost | undefined {
    return this.webhookHost;
  }

  /** The controllers added, in add order (`plan()` plans each). */
  get controllers(): readonly OperatorController[] {
    return this.members.map((m) => m.controller);
  }

  /** The registry holding every controller's metrics. */
  get metrics(): Registry {
    return this.settings.registry;
  }

  /** True when every controller is ready (and there is at least one started). */
  get ready(): boolean {
    return this.notReady() === undefined;
  }

  /** Base URL of the health server once listening, else undefined. */
  get healthUrl(): string | undefined {
    return this.host.healthUrl;
  }

  /**
   * Adds a controller. Before `start()`/`run()` it is started with the others; afterwards at once (its
   * start failure is logged and stops nothing else). Names must be unique. Its `start()` must settle within
   * `options.startTimeoutMs` (default: the operator's `startTimeoutMs`).
   */
  addController(controller: OperatorController, options: AddControllerOptions = {}): void {
    if (
      typeof controller !== 'object' ||
      typeof controller.start !== 'function' ||
      typeof controller.stop !== 'function'
    ) {
      throw new InvalidConfigError(
        'operator.addController(controller): give a Framework, a Controller or anything with start() and stop()',
      );
    }
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError('operator.addController(controller, options): options must be an object');
    }
    const startTimeoutMs = positiveMs(
      options.startTimeoutMs,
      'operator.addController(controller, options)',
      'startTimeoutMs',
      this.startTimeoutMs,
    );
    if (this.stopPromise !== undefined) throw new Error('operator was stopped; create a new one');
    const name = controller.name ?? `controller-${this.members.length + 1}`;
    if (this.members.some((m) => m.name === name)) {
      throw new InvalidConfigError(`operator.addController: a controller named "${name}" was already added`);
    }
    if (this.members.some((m) => m.controller === controller)) {
      throw new InvalidConfigError(`operator.addController: controller "${name}" was already added`);
    }
    if ((controller.hostedServices?.length ?? 0) > 0) {
      throw new InvalidConfigError(
        `operator.addController: controller "${name}" has webhooks of its own, which run only when it is started alone; in an Operator give them to the Operator: new Operator({ webhooks: { handlers, ... } })`,
      );
    }
    controller.core?.joinHost({
      registry: this.settings.registry,
      informers: this.informers,
      externalLeadership: this.host.gated,
      history: this.history,
    });
    const fence = this.host.fence;
    if (fence !== undefined) controller.core?.useFence(fence);
    const member: Member = {
      controller,
      name,
      startTimeoutMs,
      state: 'added',
      startingSince: 0,
      failure: undefined,
      started: undefined,
    };
    this.members.push(member);
    if (this.startPromise !== undefined) {
      this.startMember(member).then(
        () => {
          const leaderSignal = this.host.leaderSignal;
          if (leaderSignal !== undefined && !leaderSignal.aborted)
            controller.core?.startWorkers(leaderSignal);
        },
        (err: unknown) => {
          this.logger.error('controller added after start failed to start', { controller: name, err });
          // A member that never finished starting holds whatever it acquired; release it.
          if (err instanceof StartTimeoutError) void this.stopMember(member);
        },
      );
    }
  }

  /**
   * Removes a controller (by name or the instance given to {@link addController}): stops it — its workers
   * drain, its informers are released, a watch no other controller shares stops — and drops it from
   * `/readyz` and the live view; the others keep running. Resolves `true` once it has stopped (bounded by
   * `stopTimeoutMs`), `false` when no such controller was added. A removed controller cannot be added again
   * (create a new one), as after `stop()`.
   */
  async removeController(controller: string | OperatorController): Promise<boolean> {
    const i = this.members.findIndex((m) =>
      typeof controller === 'string' ? m.name === controller : m.controller === controller,
    );
    const member = this.members[i];
    if (member === undefined) return false;
    this.members.splice(i, 1);
    this.logger.info('removing controller', { controller: member.name });
    if (member.state !== 'added') await this.stopMember(member);
    return true;
  }

  /**
   * Starts the health server and every controller; resolves once all started (synced, workers running
   * or standing by for the Lease). The first failure stops everything and rejects with that error.
   */
  start(): Promise<void> {
    if (this.stopPromise !== undefined)
      return Promise.reject(new Error('operator was stopped; create a new one'));
    if (this.startPromise === undefined) {
      const refused = startRefusedByPlan('Operator.start()');
      if (refused !== undefined) return Promise.reject(refused);
    }
    this.startPromise ??= this.startAll().catch(async (err: unknown) => {
      this.logger.error('operator failed to start', { err });
      await this.stop();
      throw err;
    });
    return this.startPromise;
  }

  /** Starts (see {@link start}) and resolves after every controller stopped: on `signal` or `stop()`. */
  async run(signal?: AbortSignal): Promise<void> {
    if (signal !== undefined) {
      const onAbort = (): void => {
        void this.stop();
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    await this.start();
    await this.done;
  }

  /** Stops every controller gracefully (in parallel), the Lease, the watches and the health server. */
  stop(): Promise<void> {
    this.stopPromise ??= this.shutdown();
    return this.stopPromise;
  }

  /** Stops gracefully on SIGTERM/SIGINT and exits 0 (a second signal exits at once). */
  handleSignals(options: HandleSignalsOptions = {}): () => void {
    return handleSignals(this, { logger: this.logger, ...options }).dispose;
  }

  private notReady(): string | undefined {
    if (this.stopPromise !== undefined) return 'shutting down';
    if (this.members.length === 0) return 'no controllers';
    for (const m of this.members) {
      const reason = memberProblem(m);
      if (reason !== undefined) return `${m.name}: ${reason}`;
    }
    if (this.host.healthPending) return 'health server not listening yet';
    return undefined;
  }

  /** The engines of the members built on one (the Lease gates their workers). */
  private *cores(): Iterable<NonNullable<OperatorController['core']>> {
    for (const m of this.members) if (m.controller.core !== undefined) yield m.controller.core;
  }

  private debugStates(): DebugControllerState[] {
    const states: DebugControllerState[] = [];
    for (const m of this.members) {
      const state = m.controller.core?.debugState?.();
      if (state !== undefined) states.push({ ...state, name: m.name });
    }
    return states;
  }

  private startMember(member: Member): Promise<void> {
    member.started ??= this.boundedStart(member);
    return member.started;
  }

  /**
   * The member's start(), as a promise that always settles: a synchronous throw becomes a rejection with
   * a MemberStartError, and a start() still pending after the member's start timeout rejects with a
   * StartTimeoutError (the member stays not ready).
   */
  private boundedStart(member: Member): Promise<void> {
    member.state = 'starting';
    member.startingSince = Date.now();
    let begun: Promise<void>;
    try {
      begun = Promise.resolve(member.controller.start());
    } catch (err) {
      begun = Promise.reject(
        new MemberStartError(
          member.name,
          `controller "${member.name}": start() threw instead of returning a promise: ${errorMessage(err)}`,
          { cause: err },
        ),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    let onStop: (() => void) | undefined;
    const bound = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new StartTimeoutError(member.name, member.startTimeoutMs));
      }, member.startTimeoutMs);
      // Stopping the operator ends the wait at once (shutdown stops the member itself).
      onStop = () => {
        clearTimeout(timer);
        reject(
          new MemberStartError(
            member.name,
            `controller "${member.name}": the operator stopped before its start() finished`,
          ),
        );
      };
      this.lifetime.signal.addEventListener('abort', onStop, { once: true });
    });
    const result = Promise.race([begun, bound]).finally(() => {
      clearTimeout(timer);
      if (onStop !== undefined) this.lifetime.signal.removeEventListener('abort', onStop);
    });
    result.then(
      () => {
        member.state = 'started';
      },
      (err: unknown) => {
        member.state = 'failed';
        member.failure = errorMessage(err);
      },
    );
    return result;
  }

  /** The member's stop(), bounded by stopTimeoutMs (a member whose stop() hangs does not hold shutdown). */
  private async stopMember(member: Member): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        resolve('timeout');
      }, this.stopTimeoutMs);
    });
    let stopping: Promise<void>;
    try {
      stopping = Promise.resolve(member.controller.stop());
    } catch (err) {
      stopping = Promise.reject(err instanceof Error ? err : new Error(errorMessage(err)));
    }
    try {
      const outcome = await Promise.race([stopping, bound]);
      if (outcome === 'timeout') {
        this.logger.error('controller did not stop in time; carrying on without it', {
          controller: member.name,
          stopTimeoutMs: this.stopTimeoutMs,
        });
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async startAll(): Promise<void> {
    const s = this.settings;
    // The health server starts beside the webhooks and controllers, not before them: its probe thread takes
    // ~100 ms to spawn, which would otherwise delay the first reconcile by as much.
    const webhooks = this.startWebhooks();
    // Every controller starts at once; the first failure wins (the others are stopped by stop()).
    const controllers = webhooks.then(() => Promise.all(this.members.map((m) => this.startMember(m))));
    try {
      await Promise.all([this.host.serve(), controllers]);
    } catch (err) {
      // stop() (start()'s failure path) must find the webhook server if it is being started.
      await webhooks.catch(() => undefined);
      throw err;
    }
    // Every member's writes and passes are fenced by this Lease (the Lease's own renewals use another client).
    this.host.lead(this.client, () => this.cores());
    this.logger.info('operator started', {
      controllers: this.members.map((m) => m.name),
      leaderElection: s.leaderElection !== false,
    });
  }

  /** The webhook server, when configured: before the controllers, as an object they write may need it. */
  private async startWebhooks(): Promise<void> {
    if (this.webhookOptions === undefined) return;
    this.webhookHost = await WebhookHost.create({ logger: this.logger, ...this.webhookOptions });
    const url = await this.webhookHost.start(this.client, this.lifetime.signal);
    this.logger.info('webhook server listening', { url });
  }

  private async shutdown(): Promise<void> {
    this.logger.info('stopping operator', { controllers: this.members.length });
    const results = await Promise.allSettled(this.members.map((m) => this.stopMember(m)));
    for (const [i, r] of results.entries()) {
      if (r.status === 'rejected') {
        this.logger.error('controller failed to stop', { controller: this.members[i]?.name, err: r.reason });
      }
    }
    this.lifetime.abort(new Error('operator stopped'));
    await this.host.release();
    await this.informers?.stop();
    await this.webhookHost?.stop();
    await this.host.close();
    this.client?.close();
    this.logger.info('operator stopped');
    this.stopped?.();
  }
}

function memberProblem(m: Member): string | undefined {
  if (m.state === 'added') return 'not started';
  if (m.state === 'starting') {
    const s = Math.round((Date.now() - m.startingSince) / 1000);
    return `starting: start() has not finished after ${s} s (start timeout ${m.startTimeoutMs} ms)`;
  }
  if (m.state === 'failed') return `failed to start: ${m.failure ?? 'unknown error'}`;
  const core = m.controller.core;
  if (core !== undefined) return core.notReadyReason;
  if (m.controller.ready !== undefined) return m.controller.ready ? undefined : 'not ready';
  return undefined;
}

function positiveMs(value: unknown, usage: string, key: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    const got = typeof value === 'number' ? String(value) : JSON.stringify(value);
    throw new InvalidConfigError(`${usage}: ${key} must be a finite number of milliseconds > 0; got ${got}`);
  }
  return value;
}
