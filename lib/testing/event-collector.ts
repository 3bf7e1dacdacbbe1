import type { CoreV1Event, KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import { sleep } from '../util/sleep.js';
import { waitFor, type WaitForOptions } from './wait-for.js';

/** Options of {@link collectEvents}. */
export interface CollectEventsOptions {
  /** Only Events in this namespace. Default: every namespace. */
  namespace?: string;
  /** Only Events about this object (each given field must match). Default: every Event. */
  involvedObject?: { kind?: string; name?: string; uid?: string };
  /** How often the Events are listed. Default {@link DEFAULT_EVENT_POLL_INTERVAL_MS}. */
  intervalMs?: number;
  /** Stops collecting when aborted (as {@link EventCollector.stop} does). */
  signal?: AbortSignal;
}

const EVENT_REF: ResourceRef = { apiVersion: 'v1', kind: 'Event', plural: 'events' };
/** How often {@link EventCollector} lists Events: fast enough for a test, light on the server. */
export const DEFAULT_EVENT_POLL_INTERVAL_MS = 100;

/**
 * Collects Kubernetes Events (core v1): those that already exist when it starts, then every new or
 * updated one (an aggregated Event shows its latest `count`). It lists rather than watches: Events are
 * few in a test, a list never misses an update to an aggregated Event, and it works on any server.
 * Started by {@link collectEvents}; call {@link EventCollector.stop} when done.
 */
export class EventCollector {
  private readonly seen = new Map<string, CoreV1Event>();
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Pick<ObjectClient, 'list'>,
    private readonly options: CollectEventsOptions = {},
  ) {
    options.signal?.addEventListener('abort', () => {
      this.abort.abort();
    });
  }

  /** The Events collected so far, in the order first seen, each in its latest version. */
  get events(): CoreV1Event[] {
    return [...this.seen.values()];
  }

  /** Resolves with the first collected Event `predicate` accepts (already collected ones included). */
  waitFor(predicate: (event: CoreV1Event) => boolean, options: WaitForOptions = {}): Promise<CoreV1Event> {
    return waitFor(() => this.events.find(predicate), { description: 'a matching Event', ...options });
  }

  /** Lists the existing Events and starts polling; resolves once the first list is in. */
  async start(): Promise<void> {
    await this.list();
    this.loop = this.pollLoop();
  }

  /** Stops polling; nothing is left running. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private ref(): ResourceRef {
    return this.options.namespace === undefined
      ? EVENT_REF
      : { ...EVENT_REF, namespace: this.options.namespace };
  }

  private record(obj: KubernetesObject): void {
    const event = obj as CoreV1Event;
    const wanted = this.options.involvedObject;
    if (wanted !== undefined) {
      const about = event.involvedObject;
      if (wanted.kind !== undefined && about.kind !== wanted.kind) return;
      if (wanted.name !== undefined && about.name !== wanted.name) return;
      if (wanted.uid !== undefined && about.uid !== wanted.uid) return;
    }
    const key = event.metadata.uid ?? `${event.metadata.namespace ?? ''}/${event.metadata.name ?? ''}`;
    this.seen.set(key, event);
  }

  private async list(): Promise<void> {
    const list = await this.client.list<CoreV1Event>(this.ref(), { signal: this.abort.signal });
    for (const event of list.items) this.record(event);
  }

  private async pollLoop(): Promise<void> {
    const interval = this.options.intervalMs ?? DEFAULT_EVENT_POLL_INTERVAL_MS;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        await sleep(interval, signal);
        await this.list();
      } catch {
        // Aborted (the loop ends), or one failed list: the next one catches up.
      }
    }
  }
}

/** Starts an {@link EventCollector} (lists existing Events, then polls) and resolves once it runs. */
export async function collectEvents(
  client: Pick<ObjectClient, 'list'>,
  options: CollectEventsOptions = {},
): Promise<EventCollector> {
  const collector = new EventCollector(client, options);
  await collector.start();
  return collector;
}
