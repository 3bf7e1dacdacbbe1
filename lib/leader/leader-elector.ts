import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { abortableSleep } from '../util/abortable-sleep.js';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import type { ObjectRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import { LeaderElectionMetrics } from './metrics.js';

/**
 * How long a lease is valid without renewal. 15 s, as client-go/controller-runtime. A standby takes over
 * within this plus about two retry periods after the leader vanished (it times the Lease from when it
 * observed the last renewal and checks once per retry period), ≈ 19 s by default.
 * @category Leader election
 */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/**
 * The leader gives up if it could not renew for this long. 10 s (must be < lease duration).
 * @category Leader election
 */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/**
 * Pause between acquire/renew attempts. 2 s.
 * @category Leader election
 */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/**
 * Options of {@link LeaderElector}.
 * @category Leader election
 */
export interface LeaderElectorOptions {
  /** Client for the coordination.k8s.io/v1 Lease. */
  client: ObjectClient;
  /** Name of the Lease object (one per operator). */
  leaseName: string;
  /** Namespace of the Lease. */
  namespace: string;
  /** This candidate's identity. Default: `<hostname>_<uuid>`, unique per process. */
  identity?: string;
  /** Lease validity. Default {@link DEFAULT_LEASE_DURATION_MS}. */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it steps down. Default {@link DEFAULT_RENEW_DEADLINE_MS}. */
  renewDeadlineMs?: number;
  /** Pause between attempts. Default {@link DEFAULT_RETRY_PERIOD_MS}. */
  retryPeriodMs?: number;
  /** Where transitions are logged. */
  logger: Logger;
  /** Registry for `leader_election_master_status`. Default: none. */
  registry?: Registry;
  /** Labels the Lease is created with (e.g. to list a set of Leases by selector). Default: none. */
  labels?: Record<string, string>;
  /**
   * Consulted before every acquire or renew write with the Lease as just read (undefined when there is
   * none): false leaves the Lease alone and counts as a failed attempt. Default: always true.
   */
  mayHold?: (current: (KubernetesObject & { spec?: { holderIdentity?: string } }) | undefined) => boolean;
}

/**
 * What {@link LeaderElector.run} calls.
 * @category Leader election
 */
export interface LeaderCallbacks {
  /** Became leader; `leaderSignal` aborts when leadership ends (lost, or run stopped). */
  onStartedLeading(leaderSignal: AbortSignal): void;
  /** Leadership ended. */
  onStoppedLeading(): void;
  /** Another (or this) candidate was observed holding the lease. */
  onNewLeader?(identity: string): void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

type Lease = KubernetesObject & { spec?: LeaseSpec };

/**
 * Work refused because this replica can no longer be sure it holds the lease: its monotonic clock says
 * the renew deadline passed since the last successful renew (e.g. the process was paused).
 * @category Leader election
 */
export class LeaseExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaseExpiredError';
  }
}

/**
 * Whether `err` is a {@link LeaseExpiredError}.
 * @category Leader election
 */
export function isLeaseExpired(err: unknown): err is LeaseExpiredError {
  return err instanceof LeaseExpiredError;
}

/** Reads `signal.aborted` afresh (it changes across awaits; TypeScript narrows it as if it could not). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function leaseMetadata(name: string, namespace: string, labels?: Record<string, string>): V1ObjectMeta {
  return labels === undefined ? { name, namespace } : { name, namespace, labels: { ...labels } };
}

/** Kubernetes MicroTime: RFC 3339 with 6 fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/**
 * Lease-based leader election (coordination.k8s.io/v1), client-go's algorithm: expiry is judged by the
 * local time at which the lease record was last seen to change (no clock-skew trust), renewals are
 * resourceVersion-guarded, and `release()` empties the holder so a standby takes over at once.
 *
 * Guarantee: at most one candidate believes it leads, provided clocks advance at similar rates and the
 * leader stops work when `leaderSignal` aborts (it aborts `renewDeadlineMs` after the last renewal at
 * the latest, before the lease can expire for others).
 * @category Leader election
 */
export class LeaderElector {
  readonly identity: string;
  private readonly options: LeaderElectorOptions;
  private readonly logger: Logger;
  private readonly ref: ObjectRef;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly metrics: LeaderElectionMetrics | undefined;
  private observedRecord = '';
  private observedTime = 0;
  private observedHolder = '';
  private lease: Lease | undefined;
  private leading = false;
  /** performance.now() when the last successful acquire/renew request was sent (monotonic). */
  private lastRenewMono = 0;
  private term: AbortController | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  /** The fence for writes made on this replica's behalf (the framework's client checks it). */
  readonly fence: WriteFence = Object.defineProperty(
    {
      check: () => {
        if (!this.holdsLease()) {
          throw new LeaseExpiredError(
            `not writing: this replica may no longer hold lease ${this.options.namespace}/${this.options.leaseName} (no successful renew within ${this.renewDeadlineMs} ms)`,
          );
        }
      },
    },
    'signal',
    { get: () => this.term?.signal, enumerable: true },
  ) as WriteFence;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.identity = options.identity ?? `${hostname()}_${randomUUID()}`;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (!(this.leaseDurationMs > this.renewDeadlineMs && this.renewDeadlineMs > this.retryPeriodMs)) {
      throw new RangeError('leader election needs leaseDurationMs > renewDeadlineMs > retryPeriodMs');
    }
    this.logger = options.logger.child({ lease: `${options.namespace}/${options.leaseName}` });
    this.ref = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      plural: 'leases',
      namespace: options.namespace,
      name: options.leaseName,
    };
    this.metrics = options.registry ? LeaderElectionMetrics.for(options.registry) : undefined;
    this.metrics?.masterStatus.set({ name: options.leaseName }, 0);
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * True while this candidate leads and its monotonic clock says less than `renewDeadlineMs` passed since
   * the last successful renew was sent. Once false, the current term is ended on the spot (its signal
   * aborts, in-flight requests with it): a process resumed after a pause stops before it writes, since
   * others may take the lease only `leaseDurationMs` (> renewDeadlineMs) after that renew.
   */
  holdsLease(): boolean {
    if (!this.leading) return false;
    if (performance.now() - this.lastRenewMono < this.renewDeadlineMs) return true;
    this.fenceOff();
    return false;
  }

  private fenceOff(): void {
    const term = this.term;
    if (term === undefined || term.signal.aborted) return;
    this.logger.warn('renew deadline passed since the last successful renew: stopping work', {
      identity: this.identity,
      sinceRenewMs: Math.round(performance.now() - this.lastRenewMono),
    });
    term.abort(new LeaseExpiredError('renew deadline passed since the last successful renew'));
  }

  /** Ends the term when the renew deadline passes (a timer: the checks at every pass and write do the rest). */
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    const left = this.lastRenewMono + this.renewDeadlineMs - performance.now();
    this.watchdog = setTimeout(() => this.holdsLease(), Math.max(0, left) + 1);
    this.watchdog.unref();
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead (renewing), and after a loss campaign again.
   * On abort it stops leading, releases the lease and resolves.
   */
  async run(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal, callbacks))) break;
      const leader = new AbortController();
      this.term = leader;
      this.setLeading(true);
      this.armWatchdog();
      this.logger.info('became leader', { identity: this.identity });
      try {
        callbacks.onStartedLeading(leader.signal);
      } catch (err) {
        this.logger.error('onStartedLeading threw', { err });
      }
      await this.renewLoop(AbortSignal.any([signal, leader.signal]));
      clearTimeout(this.watchdog);
      this.setLeading(false);
      if (!leader.signal.aborted) leader.abort(new Error('leadership lost'));
      try {
        callbacks.onStoppedLeading();
      } catch (err) {
        this.logger.error('onStoppedLeading threw', { err });
      }
      if (isAborted(signal)) await this.release();
      else if (leader.signal.reason instanceof LeaseExpiredError) {
        this.logger.warn('fenced after the renew deadline; campaigning again', { identity: this.identity });
      } else this.logger.warn('lost leadership; campaigning again', { identity: this.identity });
    }
  }

  /** Gives the lease up (holder emptied) if this candidate holds it, so a standby takes over at once. */
  async release(): Promise<void> {
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    // A renewal cut short by shutdown may have landed without us seeing the answer: on a conflict,
    // re-read the lease and try again while it still names us.
    for (let attempt = 0; attempt < 3; attempt++) {
      let lease = this.lease;
      try {
        if (attempt > 0) lease = await this.options.client.get<Lease>(this.ref, { signal });
        if (lease?.spec?.holderIdentity !== this.identity) return;
        const now = Date.now();
        this.lease = await this.options.client.replace<Lease>(
          {
            ...lease,
            spec: {
              ...lease.spec,
              holderIdentity: '',
              leaseDurationSeconds: 1,
              acquireTime: microTime(now),
              renewTime: microTime(now),
            },
          },
          { signal },
        );
        this.setLeading(false);
        this.logger.info('released the lease', { identity: this.identity });
        return;
      } catch (err) {
        if (isConflict(err) && attempt < 2) continue;
        this.logger.warn('could not release the lease; it expires on its own', { err });
        return;
      }
    }
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.metrics?.masterStatus.set({ name: this.options.leaseName }, leading ? 1 : 0);
  }

  private async acquire(signal: AbortSignal, callbacks: LeaderCallbacks): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal, callbacks)) return true;
      await abortableSleep(this.retryPeriodMs * (1 + Math.random() * 0.2), signal);
    }
    return false;
  }

  private async renewLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await abortableSleep(this.retryPeriodMs, signal);
      if (isAborted(signal)) return;
      // A renew that lands after the deadline must not revive a term the fence already ended.
      if (!this.holdsLease()) return;
      const attempt = AbortSignal.any([signal, AbortSignal.timeout(this.renewDeadlineMs)]);
      if (await this.tryAcquireOrRenew(attempt)) {
        this.armWatchdog();
      } else if (!this.holdsLease() || this.lease?.spec?.holderIdentity !== this.identity) {
        return;
      }
    }
  }

  /** A renew sent at `sentAt` succeeded; a fenced term stays ended (the loop campaigns anew). */
  private renewed(sentAt: number): void {
    if (this.term?.signal.aborted === true && this.leading) return;
    this.lastRenewMono = Math.max(this.lastRenewMono, sentAt);
  }

  private observe(lease: Lease, callbacks?: LeaderCallbacks): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedTime = Date.now();
    }
    this.lease = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      if (holder !== '') {
        this.logger.debug('new leader observed', { holder });
        try {
          callbacks?.onNewLeader?.(holder);
        } catch (err) {
          this.logger.error('onNewLeader threw', { err });
        }
      }
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal, callbacks?: LeaderCallbacks): Promise<boolean> {
    const { client } = this.options;
    const now = Date.now();
    const sentAt = performance.now();
    const spec = (acquireTime: string, transitions: number): LeaseSpec => ({
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime,
      renewTime: microTime(now),
      leaseTransitions: transitions,
    });
    try {
      let current: Lease;
      try {
        current = await client.get<Lease>(this.ref, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        if (this.options.mayHold?.(undefined) === false) return false;
        const created = await client.create<Lease>(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: leaseMetadata(this.ref.name, this.options.namespace, this.options.labels),
            spec: spec(microTime(now), 0),
          },
          { signal },
        );
        this.observe(created, callbacks);
        this.renewed(sentAt);
        return true;
      }
      this.observe(current, callbacks);
      if (this.options.mayHold?.(current) === false) return false;
      const holder = current.spec?.holderIdentity ?? '';
      const durationMs = (current.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== this.identity && this.observedTime + durationMs > now) return false;
      const mine = holder === this.identity;
      const updated = await client.replace<Lease>(
        {
          ...current,
          spec: spec(
            mine ? (current.spec?.acquireTime ?? microTime(now)) : microTime(now),
            (current.spec?.leaseTransitions ?? 0) + (mine ? 0 : 1),
          ),
        },
        { signal },
      );
      this.observe(updated, callbacks);
      this.renewed(sentAt);
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err) && !signal.aborted) {
        this.logger.warn('lease acquire/renew failed', { err });
      }
      return false;
    }
  }
}
