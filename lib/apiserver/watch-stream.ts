import type { ServerResponse } from 'node:http';
import { metadataOf, stringAt, type JsonObject } from './json.js';
import type { StoreEvent } from './store.js';
import { failureStatus } from './status.js';

/** Bytes a watch may have queued but unsent before it is ended with 410 (the client relists). */
export const DEFAULT_WATCH_BUFFER_BYTES = 4 * 1024 * 1024;

/** Longest delay `setTimeout` honours (2^31-1 ms, ~24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Event lines shared by the watches that present a stored object the same way: with N watchers of a type,
 * an event is serialised and UTF-8 encoded once and the same Buffer queued N times, not copied N times
 * (a string would be measured and encoded again for every socket: with 2,000 watches and 1 MiB objects,
 * seconds of event-loop time per write). Stored objects are immutable, so the object itself keys the cache;
 * it goes with the object.
 */
const sharedLines = new WeakMap<JsonObject, Map<string, Buffer>>();

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
  /**
   * Identifies how `present` renders an object (e.g. its apiVersion); watches with the same key share
   * serialised event lines. Undefined: never shared (Table watches).
   */
  shareKey?: string;
  /**
   * Drop every event and bookmark (ERROR events still go out): the requested form cannot show one event,
   * as a PartialObjectMetadataList watch on kube-apiserver, which stays open and sends nothing.
   */
  silent?: boolean;
  /** Called after the stream queued bytes or drained (global watch memory accounting). */
  onQueued?: (stream: WatchStream) => void;
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
    res.on('drain', () => {
      if (!this.closed) this.options.onQueued?.(this);
    });
  }

  /** Bytes written to this watch but not yet handed to the kernel. */
  get queuedBytes(): number {
    return this.closed ? 0 : this.res.writableLength;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends one event line. */
  send(type: string, object: unknown): void {
    if (this.closed || this.options.silent === true) return;
    this.write(JSON.stringify({ type, object }) + '\n');
  }

  private write(line: string | Buffer): void {
    this.res.write(line);
    const limit = this.options.maxBufferBytes ?? DEFAULT_WATCH_BUFFER_BYTES;
    if (this.res.writableLength > limit) {
      this.fail('the watch fell too far behind; relist and watch again');
      return;
    }
    this.options.onQueued?.(this);
  }

  /** Sends a stored object's event, serialised once for every watch with the same share key. */
  private sendStored(type: string, object: JsonObject): void {
    if (this.closed || this.options.silent === true) return;
    const key = this.options.shareKey;
    if (key === undefined) {
      this.send(type, this.options.present(object, type));
      return;
    }
    let lines = sharedLines.get(object);
    if (!lines) {
      lines = new Map();
      sharedLines.set(object, lines);
    }
    const cacheKey = `${type}\0${key}`;
    let line = lines.get(cacheKey);
    if (line === undefined) {
      line = Buffer.from(JSON.stringify({ type, object: this.options.present(object, type) }) + '\n');
      lines.set(cacheKey, line);
    }
    this.write(line);
  }

  /** Sends a stored object as ADDED (initial events of a watch). */
  sendAdded(object: JsonObject): void {
    this.sendStored('ADDED', object);
  }

  /** Delivers a store event, applying the filter and selector transitions. */
  deliver(event: StoreEvent): void {
    if (this.closed || event.typeKey !== this.options.filter.typeKey) return;
    const present = this.options.present;
    if (event.type === 'ADDED') {
      if (this.visible(event.object)) this.sendStored('ADDED', event.object);
      return;
    }
    if (event.type === 'DELETED') {
      if (this.visible(event.object)) this.sendStored('DELETED', event.object);
      return;
    }
    const was = event.previous !== undefined && this.visible(event.previous);
    const is = this.visible(event.object);
    if (was && is) this.sendStored('MODIFIED', event.object);
    else if (is) this.sendStored('ADDED', event.object);
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

  /** Ends the stream after `ms` (timeoutSeconds, fault injection); delays past ~24.8 days are chained. */
  endAfter(ms: number, beforeEnd?: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(
      () => {
        if (ms > MAX_TIMER_MS) {
          this.endAfter(ms - MAX_TIMER_MS, beforeEnd);
          return;
        }
        beforeEnd?.();
        this.end();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * Closes a watch that holds more than its share of the server's watch memory: the 410 cannot reach a
   * reader this far behind, so the connection is cut at once (the client resumes or relists).
   */
  shed(): void {
    if (this.closed) return;
    this.finish();
    this.res.socket?.destroy();
    this.res.destroy();
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
