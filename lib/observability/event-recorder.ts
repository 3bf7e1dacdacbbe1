import { randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from '../kube/api-error.js';
import type { Logger } from './logger.js';
import { silentLogger } from './logger-silent.js';

/**
 * Longest Event message kept; longer ones are cut (the API server and kubectl handle ~1 KiB well).
 * @category Observability: logs, metrics, Events, health
 */
export const MAX_EVENT_MESSAGE_LENGTH = 1024;

/**
 * Default window in which identical events are folded into one Event object (kube-rs uses 6 min).
 * @category Observability: logs, metrics, Events, health
 */
export const DEFAULT_EVENT_AGGREGATION_WINDOW_MS = 6 * 60_000;

/**
 * Most distinct event series remembered for aggregation; the oldest are forgotten first.
 * @category Observability: logs, metrics, Events, health
 */
export const DEFAULT_EVENT_CACHE_SIZE = 4096;

/**
 * The part of the object client the recorder needs (the engine's `ObjectClient` fits).
 * @category Observability: logs, metrics, Events, health
 */
export interface EventClient {
  create<T extends KubernetesObject>(obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
  patch<T extends KubernetesObject>(
    ref: { apiVersion: string; kind: string; plural?: string; namespace?: string; name: string },
    body: unknown,
    type: 'merge',
    opts?: { signal?: AbortSignal },
  ): Promise<T>;
}

/** @category Observability: logs, metrics, Events, health */
export interface EventRecorderOptions {
  /** Client that writes the Events. */
  client: EventClient;
  /** `source.component` / `reportingComponent`: who reports (the framework name). */
  component: string;
  /** `reportingInstance`: which replica reports. Default: the host name, else the component. */
  instance?: string;
  /** Window in which repeats are aggregated. Default {@link DEFAULT_EVENT_AGGREGATION_WINDOW_MS}. */
  aggregationWindowMs?: number;
  /** Logger for failures to write events (never thrown: events are best effort). Default: silent. */
  logger?: Logger;
  /** Clock, injectable for tests. Default: `Date.now`. */
  now?: () => number;
  /** Called with each recorded event (message already cut), synchronously; the live view's feed. */
  observe?: (obj: KubernetesObject, event: RecordedEvent, at: number) => void;
}

/**
 * One event to record about an object.
 * @category Observability: logs, metrics, Events, health
 */
export interface RecordedEvent {
  /** `Normal` or `Warning`. */
  type: 'Normal' | 'Warning';
  /** Short CamelCase reason (e.g. `ReconcileError`). */
  reason: string;
  /** Human-readable message; cut to {@link MAX_EVENT_MESSAGE_LENGTH}. */
  message: string;
  /** Optional `action` (e.g. `Reconcile`). */
  action?: string;
}

interface Series {
  namespace: string;
  name: string;
  count: number;
  firstTimestamp: string;
  lastSeen: number;
}

/**
 * Posts core/v1 Events about objects (what `kubectl describe` shows). Identical events (same object,
 * type, reason and message) within the aggregation window are folded into one Event whose `count` and
 * `lastTimestamp` grow, as kubectl's and client-go's recorders do, so a failing object retried every
 * few seconds does not flood the API server. Recording never throws and never blocks the caller;
 * `flush()` waits for pending writes.
 * @category Observability: logs, metrics, Events, health
 */
export class EventRecorder {
  private readonly client: EventClient;
  private readonly component: string;
  private readonly instance: string;
  private readonly windowMs: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly observe: EventRecorderOptions['observe'];
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Promise<void>>();
  // Writes for one series are chained so counts never go backwards.
  private readonly chains = new Map<string, Promise<void>>();

  constructor(options: EventRecorderOptions) {
    this.client = options.client;
    this.component = options.component;
    this.instance = options.instance ?? process.env.HOSTNAME ?? options.component;
    this.windowMs = options.aggregationWindowMs ?? DEFAULT_EVENT_AGGREGATION_WINDOW_MS;
    this.logger = options.logger ?? silentLogger();
    this.now = options.now ?? Date.now;
    this.observe = options.observe;
  }

  /** Records `event` about `obj` in the background. */
  record(obj: KubernetesObject, event: RecordedEvent, signal?: AbortSignal): void {
    const uid = obj.metadata?.uid ?? `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    const message = truncate(event.message);
    const key = `${uid}\u0000${event.type}\u0000${event.reason}\u0000${message}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const at = this.now();
    if (this.observe !== undefined) {
      try {
        this.observe(obj, { ...event, message }, at);
      } catch (err) {
        this.logger.warn('event observer failed', { err });
      }
    }
    const write = previous.then(() => this.write(key, at, obj, { ...event, message }, signal));
    this.chains.set(key, write);
    this.pending.add(write);
    void write.finally(() => {
      this.pending.delete(write);
      if (this.chains.get(key) === write) this.chains.delete(key);
    });
  }

  /** Resolves once every event recorded so far was written (or failed). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async write(
    key: string,
    now: number,
    obj: KubernetesObject,
    event: RecordedEvent,
    signal?: AbortSignal,
  ): Promise<void> {
    const timestamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    try {
      const known = this.series.get(key);
      if (known !== undefined && now - known.lastSeen < this.windowMs) {
        known.count += 1;
        known.lastSeen = now;
        try {
          await this.client.patch(
            {
              apiVersion: 'v1',
              kind: 'Event',
              plural: 'events',
              namespace: known.namespace,
              name: known.name,
            },
            { count: known.count, lastTimestamp: timestamp },
            'merge',
            signal === undefined ? {} : { signal },
          );
          return;
        } catch (err) {
          // The aggregated Event was deleted (TTL, by hand): start a new series below.
          this.series.delete(key);
          if (!isNotFound(err)) throw err;
        }
      }
      const namespace = obj.metadata?.namespace ?? 'default';
      // Event names are DNS subdomains (≤ 253 characters): a long object name is cut, or the create
      // would be rejected and the object would never get its Warning Event.
      const prefix = (obj.metadata?.name ?? 'object').slice(0, 253 - 17).replace(/[^a-z0-9]+$/, '');
      const name = `${prefix === '' ? 'object' : prefix}.${randomBytes(8).toString('hex')}`;
      const body: Record<string, unknown> = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata?.name,
          namespace: obj.metadata?.namespace,
          uid: obj.metadata?.uid,
          resourceVersion: obj.metadata?.resourceVersion,
        },
        type: event.type,
        reason: event.reason,
        message: event.message,
        ...(event.action === undefined ? {} : { action: event.action }),
        source: { component: this.component },
        reportingComponent: this.component,
        reportingInstance: this.instance,
        firstTimestamp: timestamp,
        lastTimestamp: timestamp,
        count: 1,
      };
      await this.client.create(body, signal === undefined ? {} : { signal });
      this.remember(key, { namespace, name, count: 1, firstTimestamp: timestamp, lastSeen: now });
    } catch (err) {
      this.logger.warn('failed to record event', { reason: event.reason, err });
    }
  }

  private remember(key: string, series: Series): void {
    this.series.delete(key);
    this.series.set(key, series);
    if (this.series.size > DEFAULT_EVENT_CACHE_SIZE) {
      const oldest = this.series.keys().next();
      if (oldest.done !== true) this.series.delete(oldest.value);
    }
  }
}

function truncate(message: string): string {
  return message.length <= MAX_EVENT_MESSAGE_LENGTH
    ? message
    : `${message.slice(0, MAX_EVENT_MESSAGE_LENGTH - 3)}...`;
}
