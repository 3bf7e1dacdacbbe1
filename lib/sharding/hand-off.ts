import type { KubernetesObject } from '@kubernetes/client-node';
import { isConflict } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import { HashRing } from './hash-ring.js';
import { patchLabels } from './label-patch.js';
import {
  SHARD_HANDED_TO_ANNOTATION,
  SHARD_ID_LABEL,
  SHARD_LEAVING_ANNOTATION,
  SHARD_RING_LABEL,
  shardLabels,
  shardLeaseName,
} from './shard-labels.js';
import { ShardLeases, type ShardLease } from './shard-leases.js';
import { shardKeyOf, type ShardKey } from './sharder.js';

/**
 * Label writes in flight at once while a stopping replica hands its objects over.
 * @category Sharding
 */
export const DEFAULT_HAND_OFF_CONCURRENCY = 32;

/**
 * What {@link handOffOwnObjects} needs.
 * @category Sharding
 */
export interface HandOffOptions {
  /** Client for the Leases and the label writes (unfenced: the caller's passes have all returned). */
  client: ObjectClient;
  controller: string;
  leaseNamespace: string;
  /** The shard handing over (its Lease is still held). */
  shard: string;
  /** The sharded kind. */
  resource: ResourceRef;
  /** The shard's objects, as its cache holds them. */
  objects: readonly KubernetesObject[];
  /**
   * Owned children labelled with the shard (children that follow their owner): each moves with its owner,
   * before it. `ownerOf` gives the key of the sharded object owning a child.
   */
  children?: {
    resources: readonly { resource: ResourceRef; objects: readonly KubernetesObject[] }[];
    ownerOf: (child: KubernetesObject) => string | undefined;
  };
  shardKey?: ShardKey;
  virtualNodes?: number;
  /** Label writes in flight at once. Default {@link DEFAULT_HAND_OFF_CONCURRENCY}. */
  concurrency?: number;
  signal?: AbortSignal;
}

/**
 * What a hand-over did.
 * @category Sharding
 */
export interface HandOffResult {
  /** Objects labelled for their new shard. */
  moved: number;
  /** Objects left for the sharder (relabelled by someone else meanwhile, or a write failed). */
  left: number;
  /** No other member to hand to (the last one leaving). */
  alone: boolean;
}

/**
 * A graceful stop's hand-over, done by the stopping replica itself after its passes all returned and
 * before it releases its shard Lease: it marks the Lease {@link SHARD_LEAVING_ANNOTATION} (the sharder
 * then leaves the shard out of the ring and its objects alone), places each of its objects on the ring
 * of the other live members, and labels it for that owner — children first — with a JSON patch whose
 * `test` op fails unless the object still names this shard. No pass of the object runs here any more,
 * so the new owner's first pass overlaps nothing. Whatever it did not move (a failed write, a conflict),
 * the sharder moves once the Lease is released. The sharder computes the same ring, so it agrees.
 * @category Sharding
 */
export async function handOffOwnObjects(o: HandOffOptions): Promise<HandOffResult> {
  const labels = shardLabels(o.controller);
  const leaseRef = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    plural: 'leases',
    namespace: o.leaseNamespace,
  } as const;
  const requestOptions = o.signal === undefined ? {} : { signal: o.signal };
  const [, leases] = await Promise.all([
    o.client.patch(
      { ...leaseRef, name: shardLeaseName(o.controller, o.shard) },
      { metadata: { annotations: { [SHARD_LEAVING_ANNOTATION]: 'true' } } },
      'merge',
      requestOptions,
    ),
    o.client.list<ShardLease>(leaseRef, {
      labelSelector: `${SHARD_RING_LABEL}=${o.controller}`,
      ...requestOptions,
    }),
  ]);
  const members = liveMembers(leases.items, o.shard);
  if (members.size === 0) return { moved: 0, left: o.objects.length, alone: true };
  const ring = new HashRing(
    members.keys(),
    o.virtualNodes === undefined ? {} : { virtualNodes: o.virtualNodes },
  );
  const keyOf = shardKeyOf(o.shardKey);
  const target = new Map<string, string>();
  const objectWork: (() => Promise<boolean>)[] = [];
  for (const obj of o.objects) {
    if (obj.metadata?.labels?.[labels.shard] !== o.shard) continue;
    const want = members.get(ring.owner(keyOf(obj)) as string) as string;
    const key =
      obj.metadata.namespace === undefined
        ? (obj.metadata.name ?? '')
        : `${obj.metadata.namespace}/${obj.metadata.name ?? ''}`;
    target.set(key, want);
    objectWork.push(() => relabel(o, labels.shard, labels.drain, o.resource, obj, want));
  }
  const childWork: (() => Promise<boolean>)[] = [];
  for (const { resource, objects } of o.children?.resources ?? []) {
    for (const child of objects) {
      if (child.metadata?.labels?.[labels.shard] !== o.shard) continue;
      const owner = o.children?.ownerOf(child);
      const want =
        owner === undefined
          ? undefined
          : (target.get(owner) ?? target.get(owner.slice(owner.indexOf('/') + 1)));
      if (want !== undefined)
        childWork.push(() => relabel(o, labels.shard, undefined, resource, child, want));
    }
  }
  const limit = o.concurrency ?? DEFAULT_HAND_OFF_CONCURRENCY;
  await runLanes(childWork, limit);
  const moved = await runLanes(objectWork, limit);
  return { moved, left: objectWork.length - moved, alone: false };
}

const LEASE_REF = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  plural: 'leases',
} as const;

/** The ring's live members other than `shard` (identity → shard id), from a list of the ring's Leases. */
function liveMembers(leases: readonly ShardLease[], shard: string): Map<string, string> {
  const now = Date.now();
  const view = new ShardLeases(() => now);
  for (const lease of leases) {
    if (lease.metadata?.labels?.[SHARD_ID_LABEL] === shard) continue;
    // Only Leases renewed within their duration (by their own renewTime: a hint; the sharder, timing
    // what it sees itself, moves again whatever lands on a shard that turns out dead).
    const renewed = Date.parse(lease.spec?.renewTime ?? '');
    const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (Number.isFinite(renewed) && renewed + durationMs < now) continue;
    view.observe(lease);
  }
  return view.members();
}

/**
 * What {@link recordHandOff} needs.
 * @category Sharding
 */
export interface RecordHandOffOptions {
  /** Client for the Leases (unfenced: the caller's passes have all returned). */
  client: ObjectClient;
  controller: string;
  leaseNamespace: string;
  /** The shard handing over (its Lease is still held). */
  shard: string;
  signal?: AbortSignal;
}

/**
 * The first half of a graceful stop's hand-over without a write per object, made by the stopping replica
 * after its passes all returned and before it releases its shard Lease: one resourceVersion-guarded write
 * of its Lease, marking it {@link SHARD_LEAVING_ANNOTATION} and recording in
 * {@link SHARD_HANDED_TO_ANNOTATION} the live members it hands to (identity → shard). Once the Lease is
 * released, those members adopt the keys the recorded ring gives them ({@link RecordedRing}) and the
 * sharder relabels the objects to the same owners. Returns the recorded members (empty: no one to hand
 * to, nothing written), or throws when the Lease no longer names `shard` or the write failed (the caller
 * then hands over object by object, {@link handOffOwnObjects}).
 * @category Sharding
 */
export async function recordHandOff(o: RecordHandOffOptions): Promise<Map<string, string>> {
  const leaseRef = { ...LEASE_REF, namespace: o.leaseNamespace };
  const requestOptions = o.signal === undefined ? {} : { signal: o.signal };
  for (let attempt = 0; ; attempt++) {
    const leases = await o.client.list<ShardLease>(leaseRef, {
      labelSelector: `${SHARD_RING_LABEL}=${o.controller}`,
      ...requestOptions,
    });
    const own = leases.items.find((l) => l.metadata?.labels?.[SHARD_ID_LABEL] === o.shard);
    if (own?.spec?.holderIdentity !== o.shard)
      throw new Error(`the Lease of shard ${o.shard} no longer names it`);
    const members = liveMembers(leases.items, o.shard);
    if (members.size === 0) return members;
    try {
      await o.client.patch(
        { ...leaseRef, name: own.metadata?.name ?? shardLeaseName(o.controller, o.shard) },
        {
          metadata: {
            // Guarded: a renewal or a reap in between fails this write, and the record is made again.
            resourceVersion: own.metadata?.resourceVersion,
            annotations: {
              [SHARD_LEAVING_ANNOTATION]: 'true',
              [SHARD_HANDED_TO_ANNOTATION]: JSON.stringify(Object.fromEntries(members)),
            },
          },
        },
        'merge',
        requestOptions,
      );
      return members;
    } catch (err) {
      if (!isConflict(err) || attempt >= 2) throw err;
    }
  }
}

/** Labels one object for `want` if it still names `shard`; false when it did not move. */
async function relabel(
  o: HandOffOptions,
  shardLabel: string,
  drainLabel: string | undefined,
  resource: ResourceRef,
  obj: KubernetesObject,
  want: string,
): Promise<boolean> {
  try {
    await patchLabels(
      o.client,
      resource,
      obj,
      (path) => [
        { op: 'test', path: path(shardLabel), value: o.shard },
        { op: 'add', path: path(shardLabel), value: want },
        // Present or not, the drain label ends removed (add replaces, then remove).
        ...(drainLabel === undefined
          ? []
          : [
              { op: 'add', path: path(drainLabel), value: '' },
              { op: 'remove', path: path(drainLabel) },
            ]),
      ],
      o.signal === undefined ? {} : { signal: o.signal },
    );
    return true;
  } catch {
    // Relabelled meanwhile (the test failed), gone, or the write failed: the sharder moves what is left
    // once the Lease is released.
    return false;
  }
}

/** Runs the tasks with at most `limit` at once; counts those that answered true. */
async function runLanes(tasks: readonly (() => Promise<boolean>)[], limit: number): Promise<number> {
  let next = 0;
  let done = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next++] as () => Promise<boolean>;
      if (await task()) done++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return done;
}
