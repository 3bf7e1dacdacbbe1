import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileAction, Reconciler } from '../controller/reconcile-types.js';
import type { ResourceAction } from './resource-action.js';
import type { RetryDequeuePolicy } from './retry-dequeue-policy.js';
import type { ResourceWatcher } from './resource-watcher.js';

/** A watcher or reconciler; its identity (not its index) keys its pending requests. */
export type Handler =
  { role: 'watcher'; watcher: ResourceWatcher } | { role: 'reconciler'; reconciler: Reconciler };

/** One handler's pending call for one event of one object. */
export interface PendingRequest {
  /** The watcher or reconciler object. */
  readonly target: ResourceWatcher | Reconciler;
  readonly role: Handler['role'];
  /** Event order: requests run by event, then by handler order. */
  readonly seq: number;
  readonly action: ResourceAction;
  readonly reconcileAction: ReconcileAction;
  /** Snapshot at event time. */
  readonly object: KubernetesObject;
  /** The previous object of an update. */
  readonly old: KubernetesObject | undefined;
  state: Record<string, unknown> | undefined;
  /** Failed calls so far. */
  attempt: number;
  /** When it may run (ms since the epoch). */
  dueAt: number;
  /** The error of its last failed call. */
  lastError: unknown;
  /** Never called yet (a new event), as opposed to a retry or requeue. */
  fresh: boolean;
  /** The pass that last ran it. */
  pass: number;
}

/** What the ledger holds for one object. */
export interface LedgerEntry {
  readonly kind: string;
  readonly requests: PendingRequest[];
}

/**
 * Pending requests per object (work-queue key) and handler (seed-parity §2.4): each event appends a
 * fresh request per handler; a pass runs the due ones in event and handler order; requeues and retries
 * stay with their due time. Emptied entries are deleted, so memory follows the objects with work.
 */
export class RequestLedger {
  private readonly entries = new Map<string, LedgerEntry>();
  private seq = 0;

  get(key: string): LedgerEntry | undefined {
    return this.entries.get(key);
  }

  /** Records one event for every handler (in order). */
  event(
    key: string,
    kind: string,
    handlers: readonly Handler[],
    action: ResourceAction,
    reconcileAction: ReconcileAction,
    object: KubernetesObject,
    old: KubernetesObject | undefined,
    now: number,
  ): void {
    if (handlers.length === 0) return;
    let entry = this.entries.get(key);
    if (entry === undefined || entry.kind !== kind) {
      entry = { kind, requests: entry?.requests ?? [] };
      this.entries.set(key, entry);
    }
    this.seq += 1;
    for (const h of handlers) {
      entry.requests.push({
        target: h.role === 'watcher' ? h.watcher : h.reconciler,
        role: h.role,
        seq: this.seq,
        action,
        reconcileAction,
        object,
        old,
        state: undefined,
        attempt: 0,
        dueAt: now,
        lastError: undefined,
        fresh: true,
        pass: 0,
      });
    }
  }

  /**
   * Before `fresh` runs: drops its handler's pending retries of older events (all of them without a
   * policy; those the policy says to drop with one). Returns how many were dropped. A throwing policy
   * keeps the retry (and is reported by the caller through `onPolicyError`).
   */
  dequeue(
    entry: LedgerEntry,
    fresh: PendingRequest,
    policy: RetryDequeuePolicy | undefined,
    onPolicyError: (err: unknown) => void,
  ): number {
    let dropped = 0;
    for (let i = entry.requests.length - 1; i >= 0; i--) {
      const r = entry.requests[i];
      if (r === undefined || r === fresh || r.fresh || r.target !== fresh.target || r.seq >= fresh.seq)
        continue;
      let drop = true;
      if (policy !== undefined) {
        try {
          drop = policy(fresh.action, fresh.object, r.action, r.object, r.lastError);
        } catch (err) {
          onPolicyError(err);
          drop = false;
        }
      }
      if (drop) {
        entry.requests.splice(i, 1);
        dropped += 1;
      }
    }
    return dropped;
  }

  /** Removes `request` (done, given up); false when it was already dropped. */
  remove(key: string, request: PendingRequest): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    const i = entry.requests.indexOf(request);
    if (i < 0) return false;
    entry.requests.splice(i, 1);
    return true;
  }

  /** Whether `request` is still pending (not dropped by a new event or a handler's removal). */
  holds(key: string, request: PendingRequest): boolean {
    return this.entries.get(key)?.requests.includes(request) ?? false;
  }

  /** Drops every pending request of `target` (a removed handler). */
  dropHandler(target: object): void {
    for (const [key, entry] of this.entries) {
      const kept = entry.requests.filter((r) => r.target !== target);
      entry.requests.splice(0, entry.requests.length, ...kept);
      if (kept.length === 0) this.entries.delete(key);
    }
  }

  /** Deletes the entry of `key` when nothing is pending; else the earliest due time. */
  settle(key: string): number | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.requests.length === 0) {
      this.entries.delete(key);
      return undefined;
    }
    let min = Infinity;
    for (const r of entry.requests) min = Math.min(min, r.dueAt);
    return min;
  }

  /** Objects with pending work. */
  get size(): number {
    return this.entries.size;
  }
}
