import type { StoreEvent } from './store.js';
import type { WatchStream } from './watch-stream.js';

/**
 * Bytes all watches together may have queued (besides each watch's own cap). Past it, the watches holding
 * more than their share (this / open watches) are closed, largest first, so slow readers cannot run the
 * server out of memory. Shared event lines count once per watch, so real memory stays below this.
 */
export const DEFAULT_WATCH_TOTAL_BUFFER_BYTES = 256 * 1024 * 1024;

/**
 * Fans store events out to the open watches of each type. Delivery is synchronous and never blocks;
 * queued bytes are accounted globally and the slowest watches shed when they exceed the total budget.
 */
export class WatchHub {
  private readonly streams = new Map<string, Set<WatchStream>>();
  private readonly queued = new Map<WatchStream, number>();
  private queuedTotal = 0;
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

  dispatch(event: StoreEvent): void {
    const set = this.streams.get(event.typeKey);
    if (!set) return;
    for (const stream of [...set]) {
      try {
        stream.deliver(event);
      } catch (e) {
        // One broken watch (e.g. an object its Table columns cannot render) must not cost the others
        // this event, nor fail the write that produced it: end it so its client relists.
        stream.expire(`the watch failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }

  /** Every open watch. */
  all(): WatchStream[] {
    return [...this.streams.values()].flatMap((s) => [...s]);
  }

  /** Ends every open watch of a type (its CRD went away), or all of them. */
  endAll(typeKey?: string): void {
    for (const stream of this.all()) {
      if (typeKey === undefined || stream.options.filter.typeKey === typeKey) stream.end();
    }
  }
}
