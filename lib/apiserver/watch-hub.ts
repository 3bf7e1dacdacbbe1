import { performance } from 'node:perf_hooks';
import type { StoreEvent } from './store.js';
import type { WatchStream } from './watch-stream.js';

/**
 * Bytes all watches together may have queued (besides each watch's own cap). Past it, the watches holding
 * more than their share (this / open watches) are closed, largest first, so slow readers cannot run the
 * server out of memory. Shared event lines count once per watch, so real memory stays below this.
 */
export const DEFAULT_WATCH_TOTAL_BUFFER_BYTES = 256 * 1024 * 1024;

/**
 * Most bytes, and most milliseconds, one slice of a fan-out may take before the hub yields to other requests
 * (`/healthz`, reads, writes) with `setImmediate`. Handing a 1 MiB event to 2,000 sockets copies gigabytes into
 * the kernel: done in one go it held every other request for a second or more.
 */
const SLICE_BYTES = 4 * 1024 * 1024;
const SLICE_MS = 5;

/** One event still to be handed to the watches that were open when it happened. */
interface Fanout {
  event: StoreEvent;
  streams: WatchStream[];
  next: number;
}

/**
 * Fans store events out to the open watches of each type. Delivery never blocks: a fan-out is done in
 * slices (SLICE_BYTES / SLICE_MS) so a large event to many watches does not stall the server, each watch
 * still gets its events in order and only the watches open when the event happened get it (later ones
 * replay it from history). Queued bytes are accounted globally and the slowest watches shed when they
 * exceed the total budget.
 */
export class WatchHub {
  private readonly streams = new Map<string, Set<WatchStream>>();
  private readonly queued = new Map<WatchStream, number>();
  private queuedTotal = 0;
  private readonly pending: Fanout[] = [];
  private draining = false;
  private resumeScheduled = false;
  private count = 0;
  /** Watches closed for holding more than their share of the budget (a metric for tests and docs). */
  shedCount = 0;

  constructor(private readonly totalBufferBytes = DEFAULT_WATCH_TOTAL_BUFFER_BYTES) {}

  /** Bytes queued across all watches, as last accounted. */
  get queuedBytes(): number {
    return this.queuedTotal;
  }

  /** Records a watch's queued bytes; sheds the slowest watches when the total exceeds the budget. */
  account(stream: WatchStream): void {
    const bytes = stream.queuedBytes;
    const before = this.queued.get(stream);
    if (before === undefined && bytes === 0) return;
    this.queued.set(stream, bytes);
    this.queuedTotal += bytes - (before ?? 0);
    if (this.queuedTotal > this.totalBufferBytes) this.shed();
  }

  private shed(): void {
    // Re-read every figure: sockets drain without telling us until they are empty.
    const sizes: [WatchStream, number][] = [];
    let total = 0;
    for (const stream of this.all()) {
      const bytes = stream.queuedBytes;
      sizes.push([stream, bytes]);
      total += bytes;
    }
    const share = this.totalBufferBytes / Math.max(1, this.count);
    sizes.sort((a, b) => b[1] - a[1]);
    for (const [stream, bytes] of sizes) {
      if (total <= this.totalBufferBytes || bytes <= share) break;
      stream.shed();
      this.shedCount++;
      total -= bytes;
    }
    this.queued.clear();
    this.queuedTotal = 0;
    for (const [stream, bytes] of sizes) {
      if (stream.isClosed || bytes === 0) continue;
      this.queued.set(stream, bytes);
      this.queuedTotal += bytes;
    }
  }

  add(stream: WatchStream): void {
    const key = stream.options.filter.typeKey;
    let set = this.streams.get(key);
    if (!set) {
      set = new Set();
      this.streams.set(key, set);
    }
    if (!set.has(stream)) this.count++;
    set.add(stream);
  }

  remove(stream: WatchStream): void {
    if (this.streams.get(stream.options.filter.typeKey)?.delete(stream) === true) this.count--;
    const bytes = this.queued.get(stream);
    if (bytes !== undefined) {
      this.queued.delete(stream);
      this.queuedTotal -= bytes;
    }
  }

  /** Hands an event to every watch of its type open now (at once when cheap, else in slices). */
  dispatch(event: StoreEvent): void {
    const set = this.streams.get(event.typeKey);
    if (!set || set.size === 0) return;
    this.pending.push({ event, streams: [...set], next: 0 });
    if (!this.draining) this.drain(false);
  }

  /** Delivers every pending event now (before a bookmark tells a watch the store's current version). */
  flush(): void {
    if (this.pending.length > 0) this.drain(true);
  }

  private drain(all: boolean): void {
    this.draining = true;
    const started = performance.now();
    let bytes = 0;
    for (let fanout = this.pending[0]; fanout !== undefined; fanout = this.pending[0]) {
      for (
        let stream = fanout.streams[fanout.next];
        stream !== undefined;
        stream = fanout.streams[fanout.next]
      ) {
        fanout.next++;
        const before = stream.queuedBytes;
        deliverOne(stream, fanout.event);
        bytes += Math.max(0, stream.queuedBytes - before);
        if (!all && (bytes >= SLICE_BYTES || performance.now() - started >= SLICE_MS)) {
          this.resumeLater();
          return;
        }
      }
      this.pending.shift();
    }
    this.draining = false;
  }

  private resumeLater(): void {
    if (this.resumeScheduled) return;
    this.resumeScheduled = true;
    setImmediate(() => {
      this.resumeScheduled = false;
      if (this.pending.length > 0) this.drain(false);
      else this.draining = false;
    });
  }

  /** Every open watch. */
  all(): WatchStream[] {
    return [...this.streams.values()].flatMap((s) => [...s]);
  }

  /** Ends every open watch of a type (its CRD went away), or all of them (their pending events go too). */
  endAll(typeKey?: string): void {
    for (const stream of this.all()) {
      if (typeKey === undefined || stream.options.filter.typeKey === typeKey) stream.end();
    }
  }
}

function deliverOne(stream: WatchStream, event: StoreEvent): void {
  try {
    stream.deliver(event);
  } catch (e) {
    // One broken watch (e.g. an object its Table columns cannot render) must not cost the others
    // this event, nor fail the write that produced it: end it so its client relists.
    stream.expire(`the watch failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
