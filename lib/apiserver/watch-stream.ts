import type { ServerResponse } from 'node:http';
import { metadataOf, stringAt, type JsonObject } from './json.js';
import type { StoreEvent } from './store.js';
import { failureStatus } from './status.js';

/** Bytes a watch may have queued but unsent before it is ended with 410 (the client relists). */
export const DEFAULT_WATCH_BUFFER_BYTES = 4 * 1024 * 1024;

/** Which objects a watch sees. */
export interface WatchFilter {
  typeKey: string;
  namespace?: string;
  matches(obj: JsonObject): boolean;
}

export interface WatchStreamOptions {
  filter: WatchFilter;
  /** Turns a stored object into what the client gets (version rewrite, Table row). */
  present: (obj: JsonObject, type: string) => unknown;
  /** Queued bytes before the watch is ended with 410; default DEFAULT_WATCH_BUFFER_BYTES. */
  maxBufferBytes?: number;
  /** Builds a BOOKMARK object for a resourceVersion, or undefined when bookmarks are off. */
  bookmark?: (rv: number, annotations?: Record<string, string>) => unknown;
  /** Called once when the stream ends for any reason. */
  onClose: () => void;
  /** Request coordinates used by fault rules (dropWatchAfterMs). */
  coordinates: { resource: string; namespace?: string; name?: string };
}

/** One open watch response: newline-delimited JSON events, selector transitions, bounded buffering. */
export class WatchStream {
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly res: ServerResponse,
    readonly options: WatchStreamOptions,
  ) {
    res.on('close', () => {
      this.finish();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends one event line. */
  send(type: string, object: unknown): void {
    if (this.closed) return;
    this.res.write(JSON.stringify({ type, object }) + '\n');
    const limit = this.options.maxBufferBytes ?? DEFAULT_WATCH_BUFFER_BYTES;
    if (this.res.writableLength > limit) {
      this.fail('the watch fell too far behind; relist and watch again');
    }
  }

  /** Delivers a store event, applying the filter and selector transitions. */
  deliver(event: StoreEvent): void {
    if (this.closed || event.typeKey !== this.options.filter.typeKey) return;
    const present = this.options.present;
    if (event.type === 'ADDED') {
      if (this.visible(event.object)) this.send('ADDED', present(event.object, 'ADDED'));
      return;
    }
    if (event.type === 'DELETED') {
      if (this.visible(event.object)) this.send('DELETED', present(event.object, 'DELETED'));
      return;
    }
    const was = event.previous !== undefined && this.visible(event.previous);
    const is = this.visible(event.object);
    if (was && is) this.send('MODIFIED', present(event.object, 'MODIFIED'));
    else if (is) this.send('ADDED', present(event.object, 'ADDED'));
    else if (was && event.previous) {
      const gone = {
        ...event.previous,
        metadata: { ...metadataOf(event.previous), resourceVersion: String(event.rv) },
      };
      this.send('DELETED', present(gone, 'DELETED'));
    }
  }

  /** Sends a BOOKMARK when bookmarks were requested. */
  sendBookmark(rv: number, annotations?: Record<string, string>): void {
    const object = this.options.bookmark?.(rv, annotations);
    if (object !== undefined) this.send('BOOKMARK', object);
  }

  /** Sends ERROR 410 Expired and closes. */
  expire(message: string): void {
    this.fail(message);
  }

  /** Ends the stream cleanly (the client resumes from its last resourceVersion). */
  end(): void {
    if (this.closed) return;
    this.res.end();
    this.finish();
  }

  /** Ends the stream after `ms` (timeoutSeconds, fault injection). */
  endAfter(ms: number, beforeEnd?: () => void): void {
    const timer = setTimeout(() => {
      beforeEnd?.();
      this.end();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Runs `fn` every `ms` while open (bookmarks). */
  every(ms: number, fn: () => void): void {
    const timer = setInterval(fn, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private visible(obj: JsonObject): boolean {
    const ns = this.options.filter.namespace;
    if (ns !== undefined && stringAt(metadataOf(obj), 'namespace') !== ns) return false;
    return this.options.filter.matches(obj);
  }

  private fail(message: string): void {
    if (this.closed) return;
    const status = failureStatus(410, 'Expired', message);
    this.res.write(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    this.res.end();
    // A reader that never drains would keep the socket (and its buffer) forever: cut it loose.
    const socket = this.res.socket;
    const timer = setTimeout(() => socket?.destroy(), 5000);
    timer.unref();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.options.onClose();
  }
}
