import type { ResourceTrace } from '../context/pass-trace.js';
import type { PassTrigger } from './pass-trigger.js';

/**
 * Bounded in-memory reconcile history for the live view (`/debug/`): a ring of the last passes per
 * object and a global cap on objects (least recently reconciled evicted first). Fed by ControllerCore
 * after each pass; holds names, results, durations and error messages only, never object contents.
 */

/**
 * Environment variable that turns `debugPage` on when a controller leaves it unset (`reconcilekit dev` sets
 * it to `1`). @category Observability: logs, metrics, Events, health
 */
export const DEBUG_PAGE_ENV = 'RECONCILEKIT_DEBUG_PAGE';

/** Passes kept per object. @category Observability: logs, metrics, Events, health */
export const DEFAULT_DEBUG_PASSES_PER_OBJECT = 20;
/** Objects kept across all controllers. @category Observability: logs, metrics, Events, health */
export const DEFAULT_DEBUG_MAX_OBJECTS = 10_000;
/** Characters of an error message kept (the rest is cut with an ellipsis). */
export const DEBUG_ERROR_CHARS = 2_000;
/**
 * Newest passes per object that keep their per-resource detail (step durations, patch parts); older
 * passes in the ring keep the summary only. @category Observability: logs, metrics, Events, health
 */
export const DEBUG_DETAIL_PASSES = 5;
/**
 * How long after the last `/debug/` request passes keep recording their per-resource detail (step
 * durations, patch parts); an open stream keeps it on too. Nobody looking, a pass records its summary and
 * trigger only: the detail is what costs. @category Observability: logs, metrics, Events, health
 */
export const DEBUG_DETAIL_WINDOW_MS = 10 * 60_000;
/** Recent Events kept (repeats of one are folded into it). @category Observability: logs, metrics, Events, health */
export const DEFAULT_DEBUG_EVENTS = 100;
/**
 * How long passes are gathered before subscribers hear of them, in one batch: a pass never waits on a
 * subscriber, and a key reconciled many times in that window is told once (its latest pass).
 * @category Observability: logs, metrics, Events, health
 */
export const DEBUG_NOTIFY_INTERVAL_MS = 100;
/**
 * Most objects in one batch: past it the least recently reconciled wait for the page's next poll of
 * `/debug/api/objects` (every 2 s) instead. @category Observability: logs, metrics, Events, health
 */
export const DEBUG_NOTIFY_MAX_OBJECTS = 200;

/**
 * One Kubernetes Event the operator posted, as the live view shows it: no object contents, only the
 * involved object's kind and name. @category Observability: logs, metrics, Events, health
 */
export interface DebugEvent {
  controller: string;
  type: string;
  reason: string;
  /** The message (cut at DEBUG_ERROR_CHARS). */
  message: string;
  /** The involved object: `Kind namespace/name`. */
  object: string;
  /** When it was last recorded (ms since the epoch). */
  at: number;
  /** How often it was recorded (identical events are folded, as the Event recorder does). */
  count: number;
}

/** One recorded pass. @category Observability: logs, metrics, Events, health */
export interface PassRecord {
  /** When the pass started (ms since the epoch). */
  startedAt: number;
  /** How long it ran. */
  durationMs: number;
  /** success, requeue_after, requeue, error or aborted. */
  result: string;
  /** 0 for the first try, n for the n-th retry after failures. */
  attempt: number;
  /** The delete path ran. */
  deleting: boolean;
  /** The error message (cut at DEBUG_ERROR_CHARS). */
  error?: string;
  /** When the key runs again (ms since the epoch), if a retry or requeue is pending. */
  nextAt?: number;
  /** What made this pass run (the latest reason the key was enqueued). */
  trigger?: PassTrigger;
  /**
   * Each resource's step durations and applied patch parts (CRUD front end), kept for the newest
   * DEBUG_DETAIL_PASSES passes.
   */
  resources?: ResourceTrace[];
}

/** One object's summary and recent passes. @category Observability: logs, metrics, Events, health */
export interface ObjectHistory {
  controller: string;
  key: string;
  /** Oldest first. */
  passes: PassRecord[];
}

/** Summary row of one object (the last pass, without its per-resource detail). */
export interface ObjectSummary extends Omit<PassRecord, 'resources'> {
  controller: string;
  key: string;
  passCount: number;
}

/** Options of {@link HistoryRecorder}. */
export interface HistoryRecorderOptions {
  /** Passes per object. Default DEFAULT_DEBUG_PASSES_PER_OBJECT. */
  passesPerObject?: number;
  /** Objects in total. Default DEFAULT_DEBUG_MAX_OBJECTS. */
  maxObjects?: number;
  /** Recent Events kept. Default DEFAULT_DEBUG_EVENTS. */
  maxEvents?: number;
}

interface Ring {
  controller: string;
  key: string;
  items: PassRecord[];
  /** Index of the oldest once the ring is full. */
  head: number;
  total: number;
}

/** Cuts `message` to DEBUG_ERROR_CHARS characters. */
export function clipMessage(message: string): string {
  return message.length <= DEBUG_ERROR_CHARS ? message : `${message.slice(0, DEBUG_ERROR_CHARS)}…`;
}

/**
 * Per-object rings of {@link PassRecord} with a global object cap.
 * @category Observability: logs, metrics, Events, health
 */
export class HistoryRecorder {
  readonly passesPerObject: number;
  readonly maxObjects: number;
  readonly maxEvents: number;
  /** Recent Events by identity; insertion order = least recently recorded first. */
  private readonly recentEvents = new Map<string, DebugEvent>();
  /** Insertion order = least recently recorded first (re-inserted on each pass). */
  private readonly rings = new Map<string, Ring>();
  private readonly listeners = new Set<(summaries: readonly ObjectSummary[]) => void>();
  /** Rings with a pass not yet told to the listeners, least recently reconciled first. */
  private readonly unsent = new Map<string, Ring>();
  private notifyTimer: NodeJS.Timeout | undefined;
  /** When the live view was last asked for something (Date.now()). */
  private viewedAt = Number.NEGATIVE_INFINITY;

  constructor(options: HistoryRecorderOptions = {}) {
    this.passesPerObject = positive(
      options.passesPerObject,
      DEFAULT_DEBUG_PASSES_PER_OBJECT,
      'passesPerObject',
    );
    this.maxObjects = positive(options.maxObjects, DEFAULT_DEBUG_MAX_OBJECTS, 'maxObjects');
    this.maxEvents = positive(options.maxEvents, DEFAULT_DEBUG_EVENTS, 'maxEvents');
  }

  /** Records an Event the operator posted; an identical one (same object, type, reason, message) is folded. */
  recordEvent(event: Omit<DebugEvent, 'count'>): void {
    const message = clipMessage(event.message);
    const id = `${event.controller}\u0000${event.object}\u0000${event.type}\u0000${event.reason}\u0000${message}`;
    const known = this.recentEvents.get(id);
    if (known !== undefined) {
      this.recentEvents.delete(id);
      known.count += 1;
      known.at = event.at;
      this.recentEvents.set(id, known);
      return;
    }
    if (this.recentEvents.size >= this.maxEvents) {
      const oldest = this.recentEvents.keys().next().value;
      if (oldest !== undefined) this.recentEvents.delete(oldest);
    }
    this.recentEvents.set(id, { ...event, message, count: 1 });
  }

  /** Recent Events, newest first. */
  events(): DebugEvent[] {
    return [...this.recentEvents.values()].reverse().map((e) => ({ ...e }));
  }

  /** Someone asked the live view for something (the routes call it on every request). */
  viewed(now = Date.now()): void {
    this.viewedAt = now;
  }

  /** Whether passes should record their per-resource detail: a stream is open or the view was asked lately. */
  wantsDetail(now = Date.now()): boolean {
    return this.listeners.size > 0 || now - this.viewedAt < DEBUG_DETAIL_WINDOW_MS;
  }

  /** Objects held. */
  get size(): number {
    return this.rings.size;
  }

  /** Records one pass of `key` in `controller`. */
  record(controller: string, key: string, pass: PassRecord): void {
    const id = `${controller}\u0000${key}`;
    let ring = this.rings.get(id);
    if (ring === undefined) {
      ring = { controller, key, items: [], head: 0, total: 0 };
      if (this.rings.size >= this.maxObjects) {
        const oldest = this.rings.keys().next().value;
        if (oldest !== undefined) this.rings.delete(oldest);
      }
    } else this.rings.delete(id);
    this.rings.set(id, ring);
    const record = pass.error === undefined ? pass : { ...pass, error: clipMessage(pass.error) };
    const items = ring.items;
    if (items.length < this.passesPerObject) items.push(record);
    else {
      items[ring.head] = record;
      ring.head = (ring.head + 1) % this.passesPerObject;
    }
    if (items.length > DEBUG_DETAIL_PASSES) {
      // The pass that just left the newest DEBUG_DETAIL_PASSES drops its detail (bounded memory).
      const n = items.length;
      const old = items[(ring.head + n - 1 - DEBUG_DETAIL_PASSES) % n] as PassRecord;
      if (old.resources !== undefined) old.resources = undefined;
    }
    ring.total += 1;
    if (this.listeners.size > 0) this.queueNotice(id, ring);
  }

  /** Remembers that `ring` has a new pass to tell; the listeners hear of it within DEBUG_NOTIFY_INTERVAL_MS. */
  private queueNotice(id: string, ring: Ring): void {
    this.unsent.delete(id);
    this.unsent.set(id, ring);
    if (this.unsent.size > DEBUG_NOTIFY_MAX_OBJECTS) {
      const oldest = this.unsent.keys().next().value;
      if (oldest !== undefined) this.unsent.delete(oldest);
    }
    this.notifyTimer ??= setTimeout(() => {
      this.notifyTimer = undefined;
      this.notify();
    }, DEBUG_NOTIFY_INTERVAL_MS).unref();
  }

  private notify(): void {
    const summaries = [...this.unsent.values()].filter((r) => r.items.length > 0).map(summarise);
    this.unsent.clear();
    if (summaries.length === 0) return;
    for (const listener of this.listeners) listener(summaries);
  }

  /** Drops `key`'s history (the object is gone). */
  forget(controller: string, key: string): void {
    this.rings.delete(`${controller}\u0000${key}`);
  }

  /** One object's passes, oldest first, or undefined. */
  history(controller: string, key: string): ObjectHistory | undefined {
    const ring = this.rings.get(`${controller}\u0000${key}`);
    if (ring === undefined) return undefined;
    return { controller, key, passes: ordered(ring) };
  }

  /** Summaries, most recently reconciled first; `search` filters by a substring of the key. */
  objects(search = '', limit = Infinity): ObjectSummary[] {
    const out: ObjectSummary[] = [];
    const rings = [...this.rings.values()];
    for (let i = rings.length - 1; i >= 0 && out.length < limit; i--) {
      const ring = rings[i] as Ring;
      if (search !== '' && !ring.key.includes(search)) continue;
      out.push(summarise(ring));
    }
    return out;
  }

  /** Objects whose key contains `search` (all of them for ''). */
  count(search = ''): number {
    if (search === '') return this.rings.size;
    let n = 0;
    for (const ring of this.rings.values()) if (ring.key.includes(search)) n += 1;
    return n;
  }

  /** Live listeners (open SSE streams). */
  get subscribers(): number {
    return this.listeners.size;
  }

  /**
   * Calls `listener` with the summaries of the objects reconciled since the last call, at most every
   * DEBUG_NOTIFY_INTERVAL_MS and never from inside a pass (at most DEBUG_NOTIFY_MAX_OBJECTS, the most
   * recent); returns the unsubscribe.
   */
  subscribe(listener: (summaries: readonly ObjectSummary[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.unsent.clear();
        clearTimeout(this.notifyTimer);
        this.notifyTimer = undefined;
      }
    };
  }
}

function ordered(ring: Ring): PassRecord[] {
  return ring.head === 0
    ? [...ring.items]
    : [...ring.items.slice(ring.head), ...ring.items.slice(0, ring.head)];
}

function summarise(ring: Ring): ObjectSummary {
  const n = ring.items.length;
  const { resources: _detail, ...last } = ring.items[(ring.head + n - 1) % n] as PassRecord;
  return { ...last, controller: ring.controller, key: ring.key, passCount: ring.total };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`HistoryRecorder: ${name} must be a positive integer; got ${String(value)}`);
  }
  return value;
}
