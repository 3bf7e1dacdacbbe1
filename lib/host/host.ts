import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { ControllerCore } from '../engine/controller-core.js';
import type { ResolvedCoreConfig } from '../engine/resolve-core-config.js';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import { LeaderElector } from '../leader/leader-elector.js';
import type { DebugControllerState } from '../debug/debug-routes.js';
import type { HistoryRecorder } from '../debug/history-recorder.js';
import { HealthServer, type HealthCheck } from '../observability/health-server.js';
import type { Logger } from '../observability/logger.js';

/** What a host gates with its Lease: the engine's worker switch and write fence. */
export type LeaseMember = Pick<ControllerCore, 'useFence' | 'startWorkers' | 'stopWorkers'>;

/**
 * Options of a {@link Host}: the process concerns of one operator process, resolved as the engine resolves
 * them (`resolveCoreConfig`).
 */
export interface HostOptions {
  logger: Logger;
  registry: Registry;
  healthServer: ResolvedCoreConfig['healthServer'];
  debugPage: ResolvedCoreConfig['debugPage'];
  leaderElection: ResolvedCoreConfig['leaderElection'];
  /** The live view's reconcile history (undefined: no live view). */
  history: HistoryRecorder | undefined;
  /** The host's own `/readyz` checks; the user's `healthServer.readinessChecks` are added after them. */
  readinessChecks: Record<string, HealthCheck>;
  /** The live view's controller rows. */
  controllers: () => DebugControllerState[];
}

/**
 * The process concerns around the engine, as controller-runtime's manager holds them: the health server
 * (`/healthz`, `/readyz`, `/metrics`), the live view on it, and the Lease that gates every member's workers
 * and fences their writes. `Operator` is a host for many controllers; a front end started alone runs inside
 * an implicit host of its own (`FrontEnd.start`). The engine (`ControllerCore`) builds none of these.
 */
export class Host {
  private readonly options: HostOptions;
  private readonly lifetime = new AbortController();
  private health: HealthServer | undefined;
  private elector: LeaderElector | undefined;
  private election: Promise<void> | undefined;
  private currentLeaderSignal: AbortSignal | undefined;

  constructor(options: HostOptions) {
    this.options = options;
    // Long-lived: the Lease's requests and the health server listen on it.
    setMaxListeners(0, this.lifetime.signal);
  }

  /** Base URL of the health server once listening, else undefined. */
  get healthUrl(): string | undefined {
    return this.health?.url;
  }

  /** True while a configured health server is not listening yet (it starts beside the controllers). */
  get healthPending(): boolean {
    return this.options.healthServer !== false && this.health?.url === undefined;
  }

  /** The Lease's write fence once the election runs (undefined without leader election). */
  get fence(): WriteFence | undefined {
    return this.elector?.fence;
  }

  /** Aborts when this replica stops leading; undefined while it does not lead. */
  get leaderSignal(): AbortSignal | undefined {
    return this.currentLeaderSignal;
  }

  /** True when the members' workers wait for the Lease. */
  get gated(): boolean {
    return this.options.leaderElection !== false;
  }

  /** Starts the health server (and the live view on it) when configured. */
  async serve(): Promise<void> {
    const o = this.options;
    if (o.healthServer === false) return;
    const debugPage = o.debugPage;
    this.health = new HealthServer({
      ...o.healthServer,
      registry: o.registry,
      logger: o.logger,
      readinessChecks: { ...o.readinessChecks, ...o.healthServer.readinessChecks },
      ...(o.history === undefined || debugPage === false
        ? {}
        : {
            debug: {
              history: o.history,
              controllers: o.controllers,
              ...(debugPage.token === undefined ? {} : { token: debugPage.token }),
              ...(debugPage.allowedHosts === undefined ? {} : { allowedHosts: debugPage.allowedHosts }),
            },
          }),
    });
    const url = await this.health.start(this.lifetime.signal);
    o.logger.info('health server listening', { url });
    if (debugPage !== false && o.history !== undefined)
      o.logger.info(`live view on ${url}/debug/`, { url: `${url}/debug/` });
  }

  /**
   * Runs for the Lease (with leader election configured; else does nothing): `members()` are fenced with
   * it now, and their workers run while this replica leads. `client` writes the Lease itself (unfenced).
   */
  lead(client: ObjectClient | undefined, members: () => Iterable<LeaseMember>): void {
    const le = this.options.leaderElection;
    if (le === false || client === undefined || this.elector !== undefined) return;
    const elector = new LeaderElector({
      client,
      ...le,
      logger: this.options.logger,
      registry: this.options.registry,
    });
    this.elector = elector;
    for (const m of members()) m.useFence(elector.fence);
    this.election = elector
      .run(this.lifetime.signal, {
        onStartedLeading: (leaderSignal) => {
          this.currentLeaderSignal = leaderSignal;
          for (const m of members()) m.startWorkers(leaderSignal);
        },
        onStoppedLeading: () => {
          this.currentLeaderSignal = undefined;
          for (const m of members()) m.stopWorkers('leadership lost');
        },
      })
      .catch((err: unknown) => {
        this.options.logger.error('leader election failed', { err });
      });
  }

  /** Releases the Lease (once the members' workers have drained) and stops answering as leader. */
  async release(): Promise<void> {
    this.lifetime.abort(new Error('host stopped'));
    await this.election;
  }

  /** Releases the Lease and closes the health server. Idempotent. */
  async close(): Promise<void> {
    await this.release();
    await this.health?.close();
  }
}
