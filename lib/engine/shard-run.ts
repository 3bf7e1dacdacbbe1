import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { isApiError, isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import { LeaseExpiredError } from '../leader/leader-elector.js';
import type { Logger } from '../observability/logger.js';
import { ShardingMetrics } from '../sharding/metrics.js';
import { handOffOwnObjects, recordHandOff } from '../sharding/hand-off.js';
import { patchLabels } from '../sharding/label-patch.js';
import { RecordedRing, type RecordedRingOptions } from '../sharding/recorded-ring.js';
import { Sharder, shardKeyOf } from '../sharding/sharder.js';
import {
  newShardId,
  SHARD_ID_LABEL,
  SHARD_RING_LABEL,
  shardLabels,
  type ShardLabels,
} from '../sharding/shard-labels.js';
import type { ShardLease } from '../sharding/shard-leases.js';
import { ShardMember, type ShardTerm } from '../sharding/shard-member.js';
import { Informer } from '../watch/informer.js';
import { objectKey } from '../watch/store.js';
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
  /**
   * An object of a released shard that this replica adopted (its owner on the ring that shard recorded)
   * was listed, added or changed: it needs a pass, as an object of this shard's own watch would.
   */
  adoptedChanged(key: string, obj: KubernetesObject, old: KubernetesObject | undefined): void;
  /** An adopted object left the released shard's watch: relabelled (most often, to this shard) or deleted. */
  adoptedDeleted(key: string, obj: KubernetesObject): void;
}

/** A released shard whose keys this replica adopts: those its recorded ring gives to `owner`. */
interface Adoption {
  shard: string;
  ring: RecordedRing;
  informer: Informer;
  /** This replica's shard when it adopted (the adoption ends with that term). */
  owner: string;
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
  /** Aborted first at a graceful stop: releases the shard Lease before the sharder gives up its own. */
  private readonly memberStopping = new AbortController();
  /**
   * Whether this ring hands a graceful stop's keys over by adoption (no write per object): not when owned
   * children follow their owner's shard (the adopter's child watches would not hold them).
   */
  private readonly adopts: boolean;
  private readonly ringOptions: RecordedRingOptions;
  private readonly adoptions = new Map<string, Adoption>();
  /** Released shards whose adoption ended (not adopted again). */
  private readonly adopted = new Set<string>();
  private leaseWatch: Informer<ShardLease> | undefined;
  private hooks: ShardHooks | undefined;
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
    this.adopts = !(options.children === 'follow' && owns.length > 0);
    this.ringOptions = {
      keyOf: shardKeyOf(options.shardKey),
      ...(options.virtualNodes === undefined ? {} : { virtualNodes: options.virtualNodes }),
    };
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
    this.hooks = hooks;
    this.firstTerm ??= new Promise<void>((resolve, reject) => {
      const signal = this.stopping.signal;
      this.sharderDone = this.sharder?.run(signal).catch((err: unknown) => {
        this.logger.error('sharder stopped with an error', { err });
      });
      if (this.adopts) this.watchLeases();
      this.memberDone = this.member
        .run(AbortSignal.any([signal, this.memberStopping.signal]), {
          joined: (term) => {
            this.metrics.isMember.set({ controller: this.controller }, 1);
            const selector = `${this.labels.shard}=${term.shard}`;
            this.termChain = this.termChain.then(async () => {
              if (term.signal.aborted) return;
              try {
                await hooks.startTerm(selector, term);
                // A shard released before this term began may still have keys for it.
                for (const lease of this.leaseWatch?.store.list() ?? []) this.consider(lease);
                resolve();
              } catch (err) {
                if (!aborted(term.signal) && !aborted(signal))
                  reject(err instanceof Error ? err : new Error(String(err)));
              }
            });
          },
          left: (shard) => {
            this.metrics.isMember.set({ controller: this.controller }, 0);
            this.endAdoptions();
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
    if (shard === undefined) return 'not-mine';
    const current = labels?.[this.labels.shard];
    if (current !== shard) {
      // An adopted key: labelled with a released shard whose recorded ring gives it to this one.
      const adoption = current === undefined ? undefined : this.adoptions.get(current);
      return adoption?.owner === shard && adoption.ring.ownerOf(obj) === shard ? 'mine' : 'not-mine';
    }
    return labels?.[this.labels.drain] === undefined ? 'mine' : 'acknowledge';
  }

  /** The cached object of `key` if it is one this replica adopted from a released shard. */
  adoptedObject(key: string): KubernetesObject | undefined {
    const shard = this.member.term?.shard;
    for (const a of this.adoptions.values()) {
      const obj = a.informer.store.get(key);
      if (obj === undefined || a.owner !== shard) continue;
      if (obj.metadata?.labels?.[this.labels.shard] === a.shard && a.ring.ownerOf(obj) === shard) return obj;
    }
    return undefined;
  }

  /** Watches the ring's Leases for shards released with a recorded ring that names this one. */
  private watchLeases(): void {
    const watch = new Informer<ShardLease>({
      client: this.client.unfenced(),
      resource: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        plural: 'leases',
        namespace: this.options.leaseNamespace,
        labelSelector: `${SHARD_RING_LABEL}=${this.controller}`,
      },
      logger: this.logger.child({ watch: 'shard Leases (adoption)' }),
    });
    watch.on('add', (lease) => {
      this.consider(lease);
    });
    watch.on('update', (_, lease) => {
      this.consider(lease);
    });
    this.leaseWatch = watch;
    watch.start();
  }

  /**
   * Adopts the keys of a released shard whose recorded ring names this one: watches the objects still
   * labelled with that shard and hands those whose recorded owner is this shard to the work queue, as
   * its own. The released shard's passes all returned before it wrote the record and released its
   * Lease, so none of them overlaps; the sharder relabels each object to the same recorded owner.
   */
  private consider(lease: ShardLease): void {
    const mine = this.member.term?.shard;
    const released = lease.metadata?.labels?.[SHARD_ID_LABEL];
    if (mine === undefined || released === undefined || released === mine || this.stopping.signal.aborted)
      return;
    if (this.adoptions.has(released) || this.adopted.has(released)) return;
    const ring = RecordedRing.of(lease, this.ringOptions);
    if (ring?.names(mine) !== true) return;
    const r = this.resource;
    const informer = new Informer({
      client: this.client.unfenced(),
      resource: {
        apiVersion: r.apiVersion,
        kind: r.kind,
        ...(r.plural === undefined ? {} : { plural: r.plural }),
        ...(r.namespace === undefined ? {} : { namespace: r.namespace }),
        labelSelector: [r.labelSelector, `${this.labels.shard}=${released}`]
          .filter((x) => x !== undefined)
          .join(','),
      },
      logger: this.logger.child({ watch: `${r.kind} (adopted from ${released})` }),
    });
    const adoption: Adoption = { shard: released, ring, informer, owner: mine };
    this.adoptions.set(released, adoption);
    const ours = (obj: KubernetesObject): boolean =>
      this.adoptions.get(released) === adoption &&
      this.member.term?.shard === mine &&
      ring.ownerOf(obj) === mine;
    informer.on('add', (obj) => {
      if (!ours(obj)) return;
      this.metrics.handovers.inc({ controller: this.controller, how: 'adopt' });
      this.hooks?.adoptedChanged(objectKey(obj), obj, undefined);
    });
    informer.on('update', (old, obj) => {
      if (ours(obj)) this.hooks?.adoptedChanged(objectKey(obj), obj, old);
    });
    informer.on('delete', (obj) => {
      if (ours(obj)) this.hooks?.adoptedDeleted(objectKey(obj), obj);
      // Every object relabelled (or deleted): the adoption is over.
      if (informer.store.size === 0) this.endAdoption(released);
    });
    this.logger.info('adopting the keys of a released shard', { shard: released, as: mine });
    informer.start();
    informer
      .waitForSync(this.stopping.signal, 2 ** 31 - 1)
      .then(() => {
        if (informer.store.size === 0) this.endAdoption(released);
      })
      .catch(() => undefined);
  }

  /** Ends an adoption; `done`: all its objects were relabelled (not adopted again). */
  private endAdoption(shard: string, done = true): void {
    const adoption = this.adoptions.get(shard);
    if (adoption === undefined) return;
    this.adoptions.delete(shard);
    if (done) this.adopted.add(shard);
    void adoption.informer.stop();
  }

  /** The term ended: its adoptions end (the sharder relabels their objects; a next term may adopt again). */
  private endAdoptions(): void {
    for (const shard of [...this.adoptions.keys()]) this.endAdoption(shard, false);
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
   * Leaves the ring after the workers drained (every pass returned). Without children that follow: records
   * on its shard Lease the ring of the other live members it hands its keys to ({@link recordHandOff},
   * one write) and releases the Lease at once; each member named there adopts the keys the recorded ring
   * gives it, and the sharder relabels the objects to the same owners later. With children that follow
   * (or when the record could not be written): hands this shard's objects (`own`, from its caches) to
   * their ring owners itself, one label write each ({@link handOffOwnObjects}), then releases the Lease;
   * what it could not move, the sharder moves at once. Then gives up the sharder Lease (the sharder, if
   * this replica is it, first moves what is left).
   */
  async stop(own?: OwnObjects): Promise<void> {
    const shard = this.member.term?.shard;
    const live = shard !== undefined && this.member.term?.signal.aborted === false;
    let handedTo: Map<string, string> | undefined;
    if (live && this.adopts) {
      const started = Date.now();
      try {
        handedTo = await recordHandOff({
          client: this.client.unfenced(),
          controller: this.controller,
          leaseNamespace: this.options.leaseNamespace,
          shard,
          signal: AbortSignal.timeout(HAND_OFF_TIMEOUT_MS),
        });
        this.logger.info('recorded the ring this shard hands its keys to', {
          shard,
          members: handedTo.size,
          ms: Date.now() - started,
        });
      } catch (err) {
        this.logger.warn('could not record the hand-over; handing the objects over one by one', {
          err,
          shard,
        });
      }
    }
    if (live && own !== undefined && handedTo === undefined) {
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
    this.endAdoptions();
    // Release the shard Lease now: the recorded members adopt its keys, or the sharder moves what is left.
    this.memberStopping.abort();
    await this.memberDone;
    if (shard !== undefined) await this.sharder?.handOff(shard, HAND_OFF_TIMEOUT_MS, handedTo);
    this.stopping.abort();
    await this.leaseWatch?.stop();
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
