/**
 * A watch of a custom resource in a version other than its storage version, with strategy Webhook:
 * every event's object goes through the conversion webhook before it is written, in event order
 * (a queue per watch), and bookmarks wait for the events before them. A conversion that fails ends the
 * watch with an ERROR event carrying the 500 Status kube-apiserver answers.
 */
import type { ServerResponse } from 'node:http';
import { metadataOf, type JsonObject } from '../json.js';
import type { StoreEvent } from '../store.js';
import { isApiError } from '../status.js';
import { WatchStream, type WatchStreamOptions } from '../watch-stream.js';

/** Converts objects to the watch's version, remembering each result where `present` finds it. */
export type WatchConverter = (objects: JsonObject[]) => Promise<void>;

export class ConvertingWatchStream extends WatchStream {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    res: ServerResponse,
    options: WatchStreamOptions,
    private readonly convert: WatchConverter,
  ) {
    super(res, options);
  }

  private enqueue(objects: JsonObject[], then: () => void): void {
    this.chain = this.chain
      .then(async () => {
        if (this.isClosed) return;
        if (objects.length > 0) await this.convert(objects);
        then();
      })
      .catch((e: unknown) => {
        if (this.isClosed) return;
        const status = isApiError(e)
          ? e.status
          : { kind: 'Status', status: 'Failure', code: 500, message: String(e) };
        this.send('ERROR', status);
        this.end();
      });
  }

  override sendAdded(object: JsonObject): void {
    this.enqueue([object], () => {
      super.sendAdded(object);
    });
  }

  /** The event being written (for {@link presentConverted}). */
  delivering: StoreEvent | undefined;

  override deliver(event: StoreEvent): void {
    if (event.typeKey !== this.options.filter.typeKey) return;
    const objects = event.previous === undefined ? [event.object] : [event.object, event.previous];
    this.enqueue(objects, () => {
      this.delivering = event;
      try {
        super.deliver(event);
      } finally {
        this.delivering = undefined;
      }
    });
  }

  override sendBookmark(rv: number, annotations?: Record<string, string>): void {
    this.enqueue([], () => {
      super.sendBookmark(rv, annotations);
    });
  }
}

/**
 * `present` for a converting watch: the converted object; the DELETED event a watch sends when an update
 * moves an object out of its selector is built from the previous object (with the event's
 * resourceVersion), so it is shown as the previous object's conversion with that metadata.
 */
export function presentConverted(
  conversions: WeakMap<JsonObject, JsonObject>,
  stream: () => ConvertingWatchStream | undefined,
  obj: JsonObject,
): JsonObject {
  const converted = conversions.get(obj);
  if (converted !== undefined) return converted;
  const previous = stream()?.delivering?.previous;
  const before = previous === undefined ? undefined : conversions.get(previous);
  return before === undefined ? obj : { ...before, metadata: metadataOf(obj) };
}
