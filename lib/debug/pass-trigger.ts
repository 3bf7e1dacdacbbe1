/**
 * What made a pass run, for the live view: the latest reason a key was enqueued, noted at the enqueue
 * site and taken when its pass starts. Kept only while the live view is on (one map entry per waiting key).
 */

/**
 * Why a key was enqueued:
 * - `watch`: an event on the reconciled object (`event`: add, update or delete);
 * - `owned`: an event on an owned child (`source`: its kind and name);
 * - `mapped`: an event on a `watches` source whose map named this key (`source`: its kind and name);
 * - `resync`: the periodic resync;
 * - `requeue`: the previous pass asked for it (`requeueAfter`, `requeue`);
 * - `retry`: the previous pass failed;
 * - `finalizer`: the engine added its finalizer and runs the patched object;
 * - `enqueue`: `enqueue(key)` was called;
 * - `start`: enqueued when the workers started (a new leadership term), or by no site above.
 * @category Observability: logs, metrics, Events, health
 */
export type TriggerReason =
  'watch' | 'owned' | 'mapped' | 'resync' | 'requeue' | 'retry' | 'finalizer' | 'enqueue' | 'start';

/** What triggered one pass. @category Observability: logs, metrics, Events, health */
export interface PassTrigger {
  reason: TriggerReason;
  /** The watch event type (`watch`, `owned`, `mapped`). */
  event?: 'add' | 'update' | 'delete';
  /** The child or mapped object (`owned`, `mapped`): `Kind namespace/name`. */
  source?: string;
}

/** Shared triggers for the common reasons: noting them allocates nothing. */
export const TRIGGERS = {
  add: Object.freeze<PassTrigger>({ reason: 'watch', event: 'add' }),
  update: Object.freeze<PassTrigger>({ reason: 'watch', event: 'update' }),
  delete: Object.freeze<PassTrigger>({ reason: 'watch', event: 'delete' }),
  resync: Object.freeze<PassTrigger>({ reason: 'resync' }),
  requeue: Object.freeze<PassTrigger>({ reason: 'requeue' }),
  retry: Object.freeze<PassTrigger>({ reason: 'retry' }),
  finalizer: Object.freeze<PassTrigger>({ reason: 'finalizer' }),
  enqueue: Object.freeze<PassTrigger>({ reason: 'enqueue' }),
  start: Object.freeze<PassTrigger>({ reason: 'start' }),
} as const;

/** A child or mapped object's trigger. */
export function sourceTrigger(
  reason: 'owned' | 'mapped',
  event: 'add' | 'update' | 'delete',
  kind: string,
  obj: { metadata?: { name?: string; namespace?: string } },
): PassTrigger {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  const ref = namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
  return { reason, event, source: `${kind} ${ref}` };
}

/** Waiting keys whose trigger is kept (more wait without one, and their pass says `start`). */
export const DEBUG_MAX_TRIGGERS = 10_000;

/** The latest trigger per waiting key, for at most `max` keys (a follower's queue can hold every key). */
export class TriggerLedger {
  private readonly latest = new Map<string, PassTrigger>();

  constructor(private readonly max = DEBUG_MAX_TRIGGERS) {}

  /** `key` was enqueued for `trigger` (the latest wins). */
  note(key: string, trigger: PassTrigger): void {
    if (this.latest.size < this.max || this.latest.has(key)) this.latest.set(key, trigger);
  }

  /** Notes `trigger` unless another is already waiting (a run after the pass: an event during it wins). */
  noteIfNone(key: string, trigger: PassTrigger): void {
    if (this.latest.size < this.max && !this.latest.has(key)) this.latest.set(key, trigger);
  }

  /** The trigger of the pass starting now (`start` when no site noted one); forgets it. */
  take(key: string): PassTrigger {
    const trigger = this.latest.get(key);
    if (trigger === undefined) return TRIGGERS.start;
    this.latest.delete(key);
    return trigger;
  }

  /** Up to `limit` waiting keys with their trigger, oldest noted first. */
  waiting(limit: number): { key: string; trigger: PassTrigger }[] {
    const out: { key: string; trigger: PassTrigger }[] = [];
    for (const [key, trigger] of this.latest) {
      if (out.length >= limit) break;
      out.push({ key, trigger });
    }
    return out;
  }

  /** Keys waiting with a trigger. */
  get size(): number {
    return this.latest.size;
  }
}
