import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HistoryRecorder, ObjectSummary } from './history-recorder.js';

/**
 * Open `/debug/api/stream` clients at most (a developer's tabs, with room to spare); past it a new
 * stream is answered 503 with Retry-After. @category Observability: logs, metrics, Events, health
 */
export const DEFAULT_DEBUG_MAX_STREAMS = 16;
/**
 * Bytes one stream client may leave unread; past it the client is dropped (its page reconnects and
 * re-reads the table), so all streams together hold at most DEFAULT_DEBUG_MAX_STREAMS × (this + one
 * batch of at most DEBUG_NOTIFY_MAX_OBJECTS summaries).
 * @category Observability: logs, metrics, Events, health
 */
export const DEBUG_STREAM_BUFFER_BYTES = 256 * 1024;
/** Seconds a client refused for too many streams is told to wait. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The answer to a stream request past `maxClients` open streams: 503 with Retry-After and
 * `Connection: close`, so a refused client holds no connection (nor its parser and buffers) afterwards.
 * (The health server's probe thread gives the same answer itself while the streams are full.)
 */
export function streamRefusal(maxClients: number): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({
    error: `the live view serves at most ${String(maxClients)} streams at once: close another page`,
  });
  return {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': String(RETRY_AFTER_SECONDS),
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    },
    body,
  };
}

/**
 * The live view's server-sent events for one history: a bounded set of clients, one subscription to the
 * history for all of them (it hears of passes in batches, never from inside a pass), each batch encoded
 * once and the same bytes written to every client. A client that does not read is dropped once it has
 * DEBUG_STREAM_BUFFER_BYTES unread; a closed one is forgotten at once, with its buffer.
 */
export class DebugStreams {
  private readonly clients = new Set<ServerResponse>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly history: HistoryRecorder,
    private readonly maxClients = DEFAULT_DEBUG_MAX_STREAMS,
    private readonly clientBufferBytes = DEBUG_STREAM_BUFFER_BYTES,
  ) {}

  /** Open streams. */
  get size(): number {
    return this.clients.size;
  }

  /** Whether a new stream would be refused (as many open as allowed). */
  get full(): boolean {
    return this.clients.size >= this.maxClients;
  }

  /** Bytes written to the clients and not yet taken by them, all streams together. */
  get bufferedBytes(): number {
    let total = 0;
    for (const res of this.clients) total += res.writableLength;
    return total;
  }

  /** Answers a stream request: the event stream, or {@link streamRefusal} when `maxClients` are open. */
  open(req: IncomingMessage, res: ServerResponse): void {
    if (this.full) {
      const refusal = streamRefusal(this.maxClients);
      res.writeHead(503, refusal.headers);
      res.end(refusal.body);
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(': live view\n\n');
    this.clients.add(res);
    this.unsubscribe ??= this.history.subscribe((summaries) => {
      this.send(summaries);
    });
    const close = (): void => {
      if (!this.clients.delete(res)) return;
      if (this.clients.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
      }
    };
    req.on('close', close);
    res.on('close', close);
    res.on('error', close);
  }

  private send(summaries: readonly ObjectSummary[]): void {
    let text = '';
    for (const summary of summaries) text += `event: pass\ndata: ${JSON.stringify(summary)}\n\n`;
    const chunk = Buffer.from(text);
    for (const res of this.clients) {
      // A client with nothing unread always takes the batch (a batch may be larger than the bound).
      if (res.writableLength > 0 && res.writableLength + chunk.length > this.clientBufferBytes) {
        // Not reading: dropped rather than buffered for (EventSource reconnects; the page re-reads).
        this.clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(chunk);
    }
    if (this.clients.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }
}
