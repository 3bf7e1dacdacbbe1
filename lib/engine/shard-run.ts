import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { isApiError, isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import { LeaseExpiredError } from '../leader/leader-elector.js';
import type { Logger } from '../observability/logger.js';
import { ShardingMetrics } from '../sharding/metrics.js';
import { handOffOwnObjects } from '../sharding/hand-off.js';
import { patchLabels } from '../sharding/label-patch.js';
import { Sharder } from '../sharding/sharder.js';
import { newShardId, shardLabels, type ShardLabels } from '../sharding/shard-labels.js';
import { ShardMember, type ShardTerm } from '../sharding/shard-member.js';
import type { ResolvedShardingOptions } from '../sharding/sharding-options.js';
import type { FrameworkResource, OwnedResource } from './core-config.js';
import { ownerKeys } from './owner-keys.js';

/** How long a graceful stop waits for the sharder to move this shard's objects away. */
const HAND_OFF_TIMEOUT_MS = 5_000;

/** A stopping shard's objects, from its caches: the sharded kind's, and each owned kind's. */
export interface OwnObjects {
  objects: readonly KubernetesObject[];
  children: { resource: ResourceRef; objects: readonly KubernetesObject[] }[];
}

/** What the core does for a sharded run. */
export interface ShardHooks {
  /** A term began: watch the reconciled kind with `selector` (restarting the watches), then run workers. */
  startTerm(selector: string, term: ShardTerm): Promise<void>;
  /** The term ended: stop the workers at once. */
  endTerm(reason: string): void;
}

/** What the core tells a {@link ShardRun} about a key before a pass. */
export type ShardVerdict = 'mine' | 'acknowledge' | 'not-mine';

/**
 * The engine's side of sharding for one controller: this replica's membership of the ring (a Lease of its
 * own, a fresh shard id per term), its candidacy for the sharder, the selector its watch uses, and the
 * drain protocol — an object labelled for draining is acknowledged (both labels removed, guarded by a JSON
 * patch test that they still name this shard) in its key's pass slot, so never while a pass of it runs.
 */
export class ShardRun {
  readonly labels: ShardLabels;
  private readonly member: ShardMember;
  private readonly sharder: Sharder | undefined;
  private readonly metrics: ShardingMetrics;
  private readonly stopping = new AbortController();
  private memberDone: Promise<void> | undefined;
  private sharderDone: Promise<void> | undefined;
  private firstTerm: Promise<void> | undefined;
  private termChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly controller: string,
    private readonly options: ResolvedShardingOptions,
    private readonly client: ObjectClient,
    private readonly resource: FrameworkResource,
    private readonly logger: Logger,
    registry: Registry,
    owns: readonly OwnedResource[] = [],
  ) {
    this.labels = shardLabels(controller);
    this.metrics = ShardingMetrics.for(registry);
    const timing = {
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
    };
    this.member = new ShardMember({
      client: client.unfenced(),
      controller,
      namespace: options.leaseNamespace,
      ...(options.identity === undefined ? {} : { identity: options.identity }),
      ...timing,
      logger,
      registry,
    });
    if (options.sharder) {
      this.sharder = new Sharder({
        client: client.unfenced(),
        controller,
        resource: {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          ...(resource.plural === undefined ? {} : { plural: resource.plural }),
          ...(resource.namespace === undefined ? {} : { namespace: resource.namespace }),
          ...(resource.labelSelector === undefined ? {} : { labelSelector: resource.labelSelector }),
        },
        leaseNamespace: options.leaseNamespace,
        identity: newShardId(options.identity),
        ...(options.shardKey === undefined ? {} : { shardKey: options.shardKey }),
        ...(options.virtualNodes === undefined ? {} : { virtualNodes: options.virtualNodes }),
        ...(options.children === 'follow' && owns.length > 0
          ? {
              children: {
                resources: owns.map((owned) => {
                  const namespace = owned.namespace ?? resource.namespace;
                  return {
                    apiVersion: owned.apiVersion,
                    kind: owned.kind,
                    ...(owned.plural === undefined ? {} : { plural: owned.plural }),
                    ...(owned.namespaces !== undefined
                      ? { namespaces: owned.namespaces }
                      : namespace === undefined
                        ? {}
                        : { namespace }),
                    ...(owned.labelSelector === undefined ? {} : { labelSelector: owned.labelSelector }),
                    ...(owned.metadataOnly === true ? { metadataOnly: true } : {}),
                  };
                }),
                // Children follow their controller owner of the sharded kind (the first such reference).
                ownerOf: (child: KubernetesObject) => ownerKeys(child, resource, true)[0],
              },
            }
          : {}),
        ...timing,
        logger,
        registry,
      });
    }
  }

  /** Whether owned children carry their owner's shard label (and are watched by it). */
  get childrenFollow(): boolean {
    return this.options.children === 'follow';
  }

  /** The shard this replica is now (undefined between terms). */
  get shard(): string | undefined {
    return this.member.term?.shard;
  }

  /** True while this replica is the ring's sharder. */
  get isSharder(): boolean {
    return this.sharder?.isSharder === true;
  }

  /** The sharder's view (undefined unless this replica is the sharder): objects per shard. */
  assignment(): Map<string, number> | undefined {
    return this.sharder?.isSharder === true ? this.sharder.assignment() : undefined;
  }

  /** Joins the ring; resolves once the first term's watches synced and its workers run. */
  start(hooks: ShardHooks): Promise<void> {
    this.firstTerm ??= new Promise<void>((resolve, reject) => {
      const signal = this.stopping.signal;
      this.sharderDone = this.sharder?.run(signal).catch((err: unknown) => {
        this.logger.error('sharder stopped with an error', { err });
      });
      this.memberDone = this.member
        .run(signal, {
          joined: (term) => {
            this.metrics.isMember.set({ controller: this.controller }, 1);
            const selector = `${this.labels.shard}=${term.shard}`;
            this.termChain = this.termChain.then(async () => {
              if (term.signal.aborted) return;
              try {
                await hooks.startTerm(selector, term);
                resolve();
              } catch (err) {
                if (!aborted(term.signal) && !aborted(signal))
                  reject(err instanceof Error ? err : new Error(String(err)));
              }
            });
          },
          left: (shard) => {
            this.metrics.isMember.set({ controller: this.controller }, 0);
            hooks.endTerm(`shard ${shard} left the ring`);
          },
        })
        .catch((err: unknown) => {
          this.logger.error('shard membership stopped with an error', { err });
        });
    });
    return this.firstTerm;
  }

  /** Whether the pass of `obj` (this shard's cached object) may run, must acknowledge a drain, or is not ours. */
  verdict(obj: KubernetesObject | undefined): ShardVerdict {
    const labels = obj?.metadata?.labels;
    const shard = this.member.term?.shard;
    if (obj === undefined) return 'mine';
    if (shard === undefined || labels?.[this.labels.shard] !== shard) return 'not-mine';
    return labels[this.labels.drain] === undefined ? 'mine' : 'acknowledge';
  }

  /**
   * Lets a drained object go: removes the shard and drain labels if they still name this shard (a JSON
   * patch whose `test` ops fail otherwise), through the fenced client.
   */
  async acknowledge(ref: FrameworkResource, obj: KubernetesObject, signal: AbortSignal): Promise<void> {
    const shard = this.member.term?.shard;
    if (shard === undefined) return;
    try {
      await patchLabels(
        this.client,
        ref,
        obj,
        (path) => [
          { op: 'test', path: path(this.labels.shard), value: shard },
          { op: 'remove', path: path(this.labels.shard) },
          { op: 'remove', path: path(this.labels.drain) },
        ],
        { signal },
      );
    } catch (err) {
      // The labels changed meanwhile (test failed), or the object is gone: nothing of ours to let go.
      if (isNotFound(err) || isConflict(err) || (isApiError(err) && err.code === 422)) return;
      throw err;
    }
  }

  /** Counts the objects this shard watches. */
  owned(n: number): void {
    this.metrics.ownedKeys.set({ controller: this.controller }, n);
  }

  /**
   * Leaves the ring after the workers drained (every pass returned): hands this shard's objects (`own`,
   * from its caches) to their ring owners itself while its Lease is still held ({@link handOffOwnObjects}),
   * then releases the shard Lease; what it could not move, the sharder (this replica's, if it is the
   * sharder) moves at once; then gives up the sharder Lease.
   */
  async stop(own?: OwnObjects): Promise<void> {
    const shard = this.member.term?.shard;
    if (shard !== undefined && own !== undefined && this.member.term?.signal.aborted === false) {
      const started = Date.now();
      try {
        const result = await handOffOwnObjects({
          client: this.client.unfenced(),
          controller: this.controller,
          leaseNamespace: this.options.leaseNamespace,
          shard,
          resource: this.resource,
          objects: own.objects,
          ...(this.childrenFollow && own.children.length > 0
            ? {
                children: {
                  resources: own.children,
                  ownerOf: (child: KubernetesObject) => ownerKeys(child, this.resource, true)[0],
                },
              }
            : {}),
          ...(this.options.shardKey === undefined ? {} : { shardKey: this.options.shardKey }),
          ...(this.options.virtualNodes === undefined ? {} : { virtualNodes: this.options.virtualNodes }),
          signal: AbortSignal.timeout(HAND_OFF_TIMEOUT_MS),
        });
        if (!result.alone)
          this.metrics.handovers.inc({ controller: this.controller, how: 'hand-off' }, result.moved);
        this.logger.info("handed this shard's objects to their ring owners", {
          shard,
          moved: result.moved,
          left: result.left,
          ms: Date.now() - started,
        });
      } catch (err) {
        this.logger.warn('could not hand the objects over; the sharder moves them', { err, shard });
      }
    }
    if (shard !== undefined) await this.sharder?.handOff(shard, HAND_OFF_TIMEOUT_MS);
    this.stopping.abort();
    await this.memberDone;
    await this.sharderDone;
  }

  /**
   * The write fence of the shard: open while the current term's Lease was renewed within the renew
   * deadline, closed between terms (a replica that is no shard writes nothing).
   */
  readonly fence: WriteFence = Object.defineProperty(
    {
      check: () => {
        const term = this.member.term;
        if (term === undefined) {
          throw new LeaseExpiredError(`not writing: not a member of the ${this.controller} shard ring`);
        }
        term.fence.check();
      },
    },
    'signal',
    { get: () => this.member.term?.fence.signal, enumerable: true },
  ) as WriteFence;
}

/** Reads `signal.aborted` afresh (it changes across awaits). */
function aborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
