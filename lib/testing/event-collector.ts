/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
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
  /** Stops collecting when aborted (as {@link EventCollector.stop} does). */
  signal?: AbortSignal;
}

const EVENT_REF: ResourceRef = { apiVersion: 'v1', kind: 'Event', plural: 'events' };
/** Pause before re-listing after a failed watch, so a broken server is not hammered. */
const REWATCH_DELAY_MS = 100;

/**
 * Collects Kubernetes Events (core v1) as they are written: those that already exist when it starts,
 * then every new or updated one (an aggregated Event shows its latest `count`). Started by
 * {@link collectEvents}; call {@link EventCollector.stop} when done (it ends the watch).
 */
export class EventCollector {
  private readonly seen = new Map<string, CoreV1Event>();
  private readonly abort = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Pick<ObjectClient, 'list' | 'watch'>,
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

  /** Lists the existing Events and starts watching; resolves once the list is in. */
  async start(): Promise<void> {
    const resourceVersion = await this.list();
    this.loop = this.watchLoop(resourceVersion);
  }

  /** Ends the watch; nothing is left running. */
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

  private async list(): Promise<string> {
    const list = await this.client.list<CoreV1Event>(this.ref(), { signal: this.abort.signal });
    for (const event of list.items) this.record(event);
    return list.metadata.resourceVersion;
  }

  private async watchLoop(initial: string): Promise<void> {
    let resourceVersion = initial;
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        await this.client.watch(
          this.ref(),
          { resourceVersion, allowWatchBookmarks: true, signal },
          (type, obj) => {
            const rv = obj.metadata?.resourceVersion;
            if (rv !== undefined) resourceVersion = rv;
            if (type === 'ADDED' || type === 'MODIFIED') this.record(obj);
          },
        );
      } catch {
        // A broken watch or an expired resourceVersion: list again and resume from there.
        try {
          await sleep(REWATCH_DELAY_MS, signal);
          resourceVersion = await this.list();
        } catch {
          // Aborted, or the server is still unreachable: the loop condition decides.
        }
      }
    }
  }
}

/** Starts an {@link EventCollector} (lists existing Events, then watches) and resolves once it runs. */
export async function collectEvents(
  client: Pick<ObjectClient, 'list' | 'watch'>,
  options: CollectEventsOptions = {},
): Promise<EventCollector> {
  const collector = new EventCollector(client, options);
  await collector.start();
  return collector;
}
