import type { StoreEvent } from './store.js';
import type { WatchStream } from './watch-stream.js';

/** Fans store events out to the open watches of each type. Delivery is synchronous and never blocks. */
export class WatchHub {
  private readonly streams = new Map<string, Set<WatchStream>>();

  add(stream: WatchStream): void {
    const key = stream.options.filter.typeKey;
    let set = this.streams.get(key);
    if (!set) {
      set = new Set();
      this.streams.set(key, set);
    }
    set.add(stream);
  }

  remove(stream: WatchStream): void {
    this.streams.get(stream.options.filter.typeKey)?.delete(stream);
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
