import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LeaderElector,
} from '../leader/leader-elector.js';
import type { Logger } from '../observability/logger.js';
import { Informer } from '../watch/informer.js';
import { objectKey } from '../watch/store.js';
import { HashRing } from './hash-ring.js';
import { RecordedRing } from './recorded-ring.js';
import { ShardingMetrics } from './metrics.js';
import {
  SHARD_ID_LABEL,
  SHARD_REAPED_ANNOTATION,
  SHARD_RING_LABEL,
  sharderLeaseName,
  shardLabels,
  type ShardLabels,
} from './shard-labels.js';
import { ShardLeases, type ShardLease, type ShardState } from './shard-leases.js';

/**
 * Writes in flight at once while the sharder labels objects.
 * @category Sharding
 */
export const DEFAULT_SHARDER_CONCURRENCY = 16;
/** Leases dead for this long are deleted (their shards are gone for good and own nothing any more). */
const DEAD_LEASE_GC_MS = 60_000;
/** Events within this window are handled by one rebalance. */
const DEBOUNCE_MS = 20;

/**
 * Which string of an object the ring places: `name` (default: namespace/name, the work-queue key) or
 * `namespace` (all objects of a namespace on one shard — children in the namespace go along), or a
 * function of the object.
 * @category Sharding
 */
export type ShardKey = 'name' | 'namespace' | ((obj: KubernetesObject) => string);

/**
 * Options of a {@link Sharder}.
 * @category Sharding
 */
export interface SharderOptions {
  /** Client for the watches, the Leases and the label writes. */
  client: ObjectClient;
  /** The sharded controller (the ring). */
  controller: string;
  /** The kind whose objects are sharded (namespace and label selector as the controller watches it). */
  resource: ResourceRef & { namespace?: string; labelSelector?: string };
  /** Namespace of the shard Leases and of the sharder's own Lease. */
  leaseNamespace: string;
  /** This candidate's identity (for the sharder Lease). */
  identity: string;
  /** What the ring places. Default `name`. */
  shardKey?: ShardKey;
  /** Virtual nodes per member. Default: the ring's. */
  virtualNodes?: number;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Label writes in flight at once. Default {@link DEFAULT_SHARDER_CONCURRENCY}. */
  concurrency?: number;
  /**
   * Owned children that follow their owner's shard: each child whose `ownerOf` names a sharded object is
   * labelled with that object's shard, so a shard can watch its children with its own label selector.
   * A moving object's children are relabelled before the object itself is labelled for its new shard.
   */
  children?: {
    resources: readonly SharderChildResource[];
    /** The key (namespace/name, or the name of a cluster-scoped one) of the sharded object owning `child`. */
    ownerOf: (child: KubernetesObject) => string | undefined;
  };
  logger: Logger;
  registry?: Registry;
}

/**
 * A kind of owned children the sharder labels with their owner's shard.
 * @category Sharding
 */
export type SharderChildResource = ResourceRef & {
  namespace?: string;
  namespaces?: readonly string[];
  labelSelector?: string;
  metadataOnly?: boolean;
};

/** The key function of a {@link ShardKey}. */
export function shardKeyOf(key: ShardKey | undefined): (obj: KubernetesObject) => string {
  if (typeof key === 'function') return key;
  if (key === 'namespace') return (obj) => obj.metadata?.namespace ?? '';
  return objectKey;
}

/**
 * The sharder of one ring: one replica at a time (elected with a Lease of its own) labels every object of
 * the sharded kind with its shard, `shard.reconcilekit.io/<controller>` = the ring's owner of the object's
 * key among the ready members. On a membership change only objects whose owner changes move, and an
 * object moves from a live shard only after that shard let it go: the sharder sets the drain label, the
 * shard finishes its pass in flight and removes both labels, and only then the sharder labels it for its
 * new shard. From a dead shard (Lease released, or not renewed for a lease duration, after which its own
 * fence has closed) it moves at once. Every label write is resourceVersion-guarded, and every decision is
 * taken from the objects' current labels: a new sharder continues where a killed one stopped.
 * @category Sharding
 */
export class Sharder {
  private readonly o: SharderOptions;
  private readonly labels: ShardLabels;
  private readonly keyOf: (obj: KubernetesObject) => string;
  private readonly metrics: ShardingMetrics | undefined;
  private readonly leases = new ShardLeases();
  private readonly drainingSince = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  /** Shards this process knows are done (stopped gracefully): moved at once, even before their Lease shows it. */
  private readonly departed = new Set<string>();
  /** Rings recorded by shards of this process that stopped (the sharder may see their Lease later). */
  private readonly records = new Map<string, RecordedRing>();
  private ring: HashRing | undefined;
  private leaseInformer: Informer<ShardLease> | undefined;
  private objectInformer: Informer | undefined;
  private childInformers: { resource: SharderChildResource; informer: Informer }[] = [];
  private writer: ObjectClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private leading = false;
  private idle: (() => void)[] = [];

  constructor(options: SharderOptions) {
    this.o = options;
    this.labels = shardLabels(options.controller);
    this.keyOf = shardKeyOf(options.shardKey);
    this.metrics = options.registry === undefined ? undefined : ShardingMetrics.for(options.registry);
  }

  /** True while this replica is the ring's sharder. */
  get isSharder(): boolean {
    return this.leading;
  }

  /** Shards with a Lease and their state, as this sharder last saw them (empty when not the sharder). */
  shards(): Map<string, ShardState> {
    return this.leading ? this.leases.shards() : new Map<string, ShardState>();
  }

  /** Objects per shard label value ('' = none yet), as this sharder sees them. */
  assignment(): Map<string, number> {
    const out = new Map<string, number>();
    for (const obj of this.objectInformer?.store.list() ?? []) {
      const shard = obj.metadata?.labels?.[this.labels.shard] ?? '';
      out.set(shard, (out.get(shard) ?? 0) + 1);
    }
    return out;
  }

  /** Campaigns for the sharder Lease until `signal` aborts; while leading, keeps the labels right. */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.o;
    const elector = new LeaderElector({
      client: o.client.unfenced(),
      leaseName: sharderLeaseName(o.controller),
      namespace: o.leaseNamespace,
      identity: o.identity,
      logger: o.logger.child({ sharder: o.controller }),
      leaseDurationMs: o.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: o.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: o.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
    });
    let term: Promise<void> = Promise.resolve();
    await elector.run(signal, {
      onStartedLeading: (leaderSignal) => {
        const writer = o.client.unfenced();
        writer.fence = elector.fence;
        term = this.lead(writer, leaderSignal);
      },
      onStoppedLeading: () => undefined,
    });
    await term;
  }

  /**
   * This process's shard `shard` stopped gracefully (its passes drained): move its objects now. Resolves
   * once none is labelled with it any more, or after `timeoutMs`; at once when this replica is not the
   * sharder (the sharder sees the released Lease). `handedTo`: the ring the shard recorded on its Lease
   * (identity → shard), whose members adopt its keys: its objects move to their owners on that ring.
   */
  async handOff(shard: string, timeoutMs: number, handedTo?: ReadonlyMap<string, string>): Promise<void> {
    this.departed.add(shard);
    if (handedTo !== undefined && handedTo.size > 0)
      this.records.set(shard, new RecordedRing(handedTo, this.ringOptions()));
    if (!this.leading) return;
    const deadline = Date.now() + timeoutMs;
    this.kick();
    while (Date.now() < deadline && this.stillLeading()) {
      // The last member leaving: no shard to move the objects to.
      if (this.leases.ready().every((s) => this.departed.has(s))) return;
      const left = (this.objectInformer?.store.list() ?? []).some(
        (obj) => obj.metadata?.labels?.[this.labels.shard] === shard,
      );
      if (!left) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async lead(writer: ObjectClient, signal: AbortSignal): Promise<void> {
    const o = this.o;
    this.writer = writer;
    this.leading = true;
    this.metrics?.isSharder.set({ controller: o.controller }, 1);
    o.logger.info('acting as sharder', { controller: o.controller, identity: o.identity });
    const leaseInformer = new Informer<ShardLease>({
      client: o.client,
      resource: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        plural: 'leases',
        namespace: o.leaseNamespace,
        labelSelector: `${SHARD_RING_LABEL}=${o.controller}`,
      },
      logger: o.logger.child({ watch: 'shard Leases' }),
    });
    // The sharder reads only metadata (names, labels, owner references, resourceVersions), so it caches
    // metadata only — unless the shard key is a function of the object, which may read anything.
    const objectInformer = new Informer({
      client: o.client,
      resource: { ...o.resource, ...(typeof o.shardKey === 'function' ? {} : { metadataOnly: true }) },
      logger: o.logger.child({ watch: `${o.resource.kind} (sharder)` }),
    });
    this.leaseInformer = leaseInformer;
    this.objectInformer = objectInformer;
    const kick = (): void => {
      this.kick();
    };
    leaseInformer.on('add', (l) => {
      this.leases.observe(l);
      kick();
    });
    leaseInformer.on('update', (_, l) => {
      this.leases.observe(l);
      kick();
    });
    leaseInformer.on('delete', (l) => {
      this.leases.forget(l);
      kick();
    });
    objectInformer.on('add', kick);
    objectInformer.on('update', kick);
    objectInformer.on('delete', (obj) => {
      this.drainingSince.delete(objectKey(obj));
    });
    const childInformers = (o.children?.resources ?? []).map((resource) => {
      const informer = new Informer({
        client: o.client,
        resource: { ...resource, metadataOnly: true },
        logger: o.logger.child({ watch: `${resource.kind} (sharder, children)` }),
      });
      informer.on('add', kick);
      informer.on('update', kick);
      return { resource, informer };
    });
    this.childInformers = childInformers;
    leaseInformer.start();
    objectInformer.start();
    for (const c of childInformers) c.informer.start();
    try {
      await Promise.all([
        leaseInformer.waitForSync(signal, 2 ** 31 - 1),
        objectInformer.waitForSync(signal, 2 ** 31 - 1),
        ...childInformers.map((c) => c.informer.waitForSync(signal, 2 ** 31 - 1)),
      ]);
      kick();
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else {
          signal.addEventListener(
            'abort',
            () => {
              resolve();
            },
            { once: true },
          );
        }
      });
    } catch {
      // aborted while syncing
    } finally {
      this.leading = false;
      clearTimeout(this.timer);
      this.metrics?.isSharder.set({ controller: o.controller }, 0);
      await Promise.allSettled([
        leaseInformer.stop(),
        objectInformer.stop(),
        ...childInformers.map((c) => c.informer.stop()),
      ]);
      this.leaseInformer = undefined;
      this.objectInformer = undefined;
      this.childInformers = [];
      this.writer = undefined;
      this.drainingSince.clear();
      for (const wake of this.idle.splice(0)) wake();
      o.logger.info('no longer the sharder', { controller: o.controller });
    }
  }

  /** `leading`, read afresh (it changes across awaits). */
  private stillLeading(): boolean {
    return this.leading;
  }

  /** Runs a rebalance soon (events in one debounce window share it). */
  private kick(): void {
    if (!this.leading) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.rebalance(), DEBOUNCE_MS);
  }

  private ringOptions(): { keyOf: (obj: KubernetesObject) => string; virtualNodes?: number } {
    return {
      keyOf: this.keyOf,
      ...(this.o.virtualNodes === undefined ? {} : { virtualNodes: this.o.virtualNodes }),
    };
  }

  private ringOf(ready: readonly string[]): HashRing {
    const sorted = [...ready].sort();
    if (this.ring?.members.join('\n') !== sorted.join('\n')) {
      this.ring = new HashRing(
        sorted,
        this.o.virtualNodes === undefined ? {} : { virtualNodes: this.o.virtualNodes },
      );
    }
    return this.ring;
  }

  private async rebalance(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    const store = this.objectInformer?.store;
    const writer = this.writer;
    if (store === undefined || writer === undefined || !this.leading) return;
    this.running = true;
    try {
      const controller = this.o.controller;
      const shards = this.leases.shards();
      for (const gone of this.departed) if (shards.get(gone) === 'ready') shards.set(gone, 'dead');
      const ready = [...shards].filter(([, s]) => s === 'ready').map(([id]) => id);
      // The ring places members by their stable identity: a replica back under a new shard id takes the
      // same keys.
      const members = this.leases.members();
      for (const [identity, shard] of members) if (this.departed.has(shard)) members.delete(identity);
      this.metrics?.members.set({ controller }, members.size);
      const counts = new Map<string, number>(ready.map((s) => [s, 0]));
      const work: (() => Promise<void>)[] = [];
      /** The shard each object is on at the end of this round (its children follow it). */
      const target = new Map<string, string>();
      // A shard whose Lease expired but still names it is declared dead on its Lease before any of its
      // objects moves; a renewal racing that write wins, and the shard keeps its objects.
      const kept = await this.reapExpired(store.list(), shards, writer);
      const leaving = this.leases.leaving();
      // A shard that stopped gracefully recorded the ring it handed its keys to, whose members adopt them
      // before any label moves: its objects go to their recorded owner while that owner is ready (once
      // it is not, its own fence has closed, and they move as from any dead shard).
      const recorded = new Map<string, RecordedRing | undefined>();
      const recordedOwner = (shard: string, obj: KubernetesObject): string | undefined => {
        if (!recorded.has(shard))
          recorded.set(
            shard,
            this.records.get(shard) ?? RecordedRing.of(this.leases.leaseOf(shard), this.ringOptions(), false),
          );
        const owner = recorded.get(shard)?.ownerOf(obj);
        return owner !== undefined && shards.get(owner) === 'ready' ? owner : undefined;
      };
      if (members.size > 0) {
        const ring = this.ringOf([...members.keys()]);
        for (const obj of store.list()) {
          const labels = obj.metadata?.labels ?? {};
          const current = labels[this.labels.shard] ?? '';
          const draining = labels[this.labels.drain] !== undefined;
          if (current !== '') counts.set(current, (counts.get(current) ?? 0) + 1);
          const key = objectKey(obj);
          // A live shard keeps its objects (and their children) until it let them go.
          const stays = current !== '' && (shards.get(current) === 'ready' || kept.has(current));
          const ringWant = members.get(ring.owner(this.keyOf(obj)) as string) as string;
          const want: string =
            (current !== '' && !stays ? recordedOwner(current, obj) : undefined) ?? ringWant;
          target.set(key, stays ? current : want);
          // A live shard that is leaving hands its objects over itself.
          if (this.inFlight.has(key) || kept.has(current) || (stays && leaving.has(current))) continue;
          if (current === want) {
            if (draining) work.push(() => this.write(obj, { [this.labels.drain]: null }, undefined));
            continue;
          }
          if (current === '') {
            work.push(() =>
              this.write(obj, { [this.labels.shard]: want, [this.labels.drain]: null }, 'assign'),
            );
          } else if (shards.get(current) === 'ready') {
            if (!draining) {
              if (!this.drainingSince.has(key)) this.drainingSince.set(key, Date.now());
              work.push(() => this.write(obj, { [this.labels.drain]: 'true' }, 'drain'));
            }
          } else {
            work.push(() =>
              this.write(obj, { [this.labels.shard]: want, [this.labels.drain]: null }, 'move'),
            );
          }
        }
      }
      this.metrics?.assignedKeys.reset();
      for (const [shard, n] of counts) this.metrics?.assignedKeys.set({ controller, shard }, n);
      // Children first: an object reaches its new shard with its children already in that shard's watch.
      await runLimited(this.childWork(target), this.o.concurrency ?? DEFAULT_SHARDER_CONCURRENCY);
      await runLimited(work, this.o.concurrency ?? DEFAULT_SHARDER_CONCURRENCY);
      await this.collectDeadLeases(writer);
    } catch (err) {
      this.o.logger.warn('rebalance failed; trying again', { err });
      this.again = true;
    } finally {
      this.running = false;
      const next = this.leases.nextExpiryIn();
      if (this.again) {
        this.again = false;
        this.kick();
      } else if (next !== undefined && this.stillLeading()) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.rebalance(), Math.max(0, next) + 5);
      }
    }
  }

  /**
   * Empties the Lease of each shard that still labels objects and is dead by expiry while its Lease still
   * names it (a resourceVersion-guarded write, annotated {@link SHARD_REAPED_ANNOTATION}): from then on
   * the shard id is spent — its replica, if it comes back, joins under a new one — and its objects may
   * move. Returns the shards whose Lease changed meanwhile (a renewal won): their objects stay this round.
   */
  private async reapExpired(
    objects: readonly KubernetesObject[],
    shards: ReadonlyMap<string, ShardState>,
    writer: ObjectClient,
  ): Promise<Set<string>> {
    const kept = new Set<string>();
    const labelled = new Set(objects.map((obj) => obj.metadata?.labels?.[this.labels.shard] ?? ''));
    for (const shard of labelled) {
      if (shard === '' || shards.get(shard) !== 'dead' || this.departed.has(shard)) continue;
      const lease = this.leases.leaseOf(shard);
      if (lease?.spec?.holderIdentity !== shard) continue;
      try {
        const reaped = await writer.patch<ShardLease>(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            plural: 'leases',
            namespace: this.o.leaseNamespace,
            name: lease.metadata?.name ?? '',
          },
          {
            metadata: {
              resourceVersion: lease.metadata?.resourceVersion,
              annotations: { [SHARD_REAPED_ANNOTATION]: this.o.identity },
            },
            spec: { holderIdentity: '' },
          },
          'merge',
        );
        this.leases.observe(reaped);
        this.o.logger.info('declared a shard dead (its Lease expired)', {
          controller: this.o.controller,
          shard,
        });
      } catch (err) {
        if (isNotFound(err)) continue;
        kept.add(shard);
        // A conflict: the Lease changed, and its watch event brings the next round.
        if (!isConflict(err)) {
          this.again = true;
          this.o.logger.warn('could not declare a shard dead', { err, shard });
        }
      }
    }
    return kept;
  }

  /** Label writes that give each owned child its owner's shard (per `target`). */
  private childWork(target: ReadonlyMap<string, string>): (() => Promise<void>)[] {
    const ownerOf = this.o.children?.ownerOf;
    if (ownerOf === undefined) return [];
    const work: (() => Promise<void>)[] = [];
    for (const { resource, informer } of this.childInformers) {
      for (const child of informer.store.list()) {
        const owner = ownerOf(child);
        // A cluster-scoped owner's key is its bare name.
        const want =
          owner === undefined
            ? undefined
            : (target.get(owner) ?? target.get(owner.slice(owner.indexOf('/') + 1)));
        if (want === undefined || child.metadata?.labels?.[this.labels.shard] === want) continue;
        const key = `${resource.apiVersion}/${resource.kind}:${objectKey(child)}`;
        if (this.inFlight.has(key)) continue;
        work.push(() => this.write(child, { [this.labels.shard]: want }, undefined, resource, key));
      }
    }
    return work;
  }

  /** One resourceVersion-guarded merge patch of the object's labels (`null` removes one). */
  private async write(
    obj: KubernetesObject,
    labels: Record<string, string | null>,
    how: 'assign' | 'drain' | 'move' | undefined,
    resource: ResourceRef = this.o.resource,
    key: string = objectKey(obj),
  ): Promise<void> {
    const writer = this.writer;
    if (writer === undefined) return;
    const { controller } = this.o;
    this.inFlight.add(key);
    try {
      await writer.patch(
        {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          ...(resource.plural === undefined ? {} : { plural: resource.plural }),
          ...(obj.metadata?.namespace === undefined ? {} : { namespace: obj.metadata.namespace }),
          name: obj.metadata?.name ?? '',
        },
        { metadata: { resourceVersion: obj.metadata?.resourceVersion, labels } },
        'merge',
      );
      if (how === undefined) return;
      this.metrics?.handovers.inc({ controller, how });
      if (how !== 'drain') {
        const since = this.drainingSince.get(key);
        this.drainingSince.delete(key);
        if (since !== undefined)
          this.metrics?.handoverSeconds.observe({ controller }, (Date.now() - since) / 1000);
      }
    } catch (err) {
      // Changed meanwhile (its watch event brings the next decision) or gone: nothing to do.
      if (!isConflict(err) && !isNotFound(err)) throw err;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Deletes the Leases of shards dead for a while and owning nothing. */
  private async collectDeadLeases(writer: ObjectClient): Promise<void> {
    const old = this.leases.deadSince(DEAD_LEASE_GC_MS);
    if (old.length === 0) return;
    const owning = new Set(this.assignment().keys());
    for (const lease of old) {
      const name = lease.metadata?.name;
      if (name === undefined || lease.metadata?.labels?.[SHARD_RING_LABEL] !== this.o.controller) continue;
      if (owning.has(lease.metadata.labels[SHARD_ID_LABEL] ?? '')) continue;
      try {
        await writer.delete({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          plural: 'leases',
          namespace: this.o.leaseNamespace,
          name,
        });
      } catch (err) {
        if (!isNotFound(err)) this.o.logger.debug('could not delete a dead shard Lease', { err, name });
      }
    }
  }
}

/** Runs the tasks with at most `limit` at once; rejects with the first failure after all settled. */
async function runLimited(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  let failure: Error | undefined;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++] as () => Promise<void>;
      try {
        await task();
      } catch (err) {
        failure ??= err instanceof Error ? err : new Error(`label write failed: ${JSON.stringify(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  if (failure !== undefined) throw failure;
}
