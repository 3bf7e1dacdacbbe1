import type { ServerResponse } from 'node:http';

/** kube-apiserver's `--max-requests-inflight` default: reads (get, list) answered at once. */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 400;
/** kube-apiserver's `--max-mutating-requests-inflight` default: writes answered at once. */
export const DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT = 200;

/** The body kube-apiserver's in-flight filter answers with (`http.Error`: plain text). */
export const TOO_MANY_REQUESTS_TEXT = 'Too many requests, please try again later.\n';

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);

/**
 * kube-apiserver's max-in-flight filter (k8s.io/apiserver/pkg/server/filters/maxinflight.go): reads and
 * writes being answered — body reading included, so a slow body holds its slot until the request
 * timeout — are counted apart; past a limit the request is answered `429` with `Retry-After: 1` and a
 * plain-text body. Long-running requests (watches) are not counted, nor are public probes (they are
 * answered before), and a `system:masters` user is never refused — "so powerful that they should always
 * get an answer", as kube's filter says. A limit of 0 turns that half off.
 */
export class InFlightLimit {
  private reads = 0;
  private writes = 0;

  constructor(
    private readonly maxReads: number,
    private readonly maxWrites: number,
  ) {}

  /**
   * Counts the request until `res` closes, or answers it 429 and returns false. `privileged`: whether the
   * user is in `system:masters` (takes a free slot, and is answered without one when none is free).
   */
  admit(verb: string, privileged: () => boolean, res: ServerResponse): boolean {
    if (verb === 'watch') return true;
    const mutating = !NON_MUTATING_VERBS.has(verb);
    const limit = mutating ? this.maxWrites : this.maxReads;
    const current = mutating ? this.writes : this.reads;
    if (limit > 0 && current >= limit) {
      if (privileged()) return true; // answered without a slot, as kube's filter does
      res.writeHead(429, {
        'Retry-After': '1',
        'Content-Type': 'text/plain; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Content-Length': Buffer.byteLength(TOO_MANY_REQUESTS_TEXT),
      });
      res.end(res.req.method === 'HEAD' ? undefined : TOO_MANY_REQUESTS_TEXT);
      return false;
    }
    if (mutating) this.writes += 1;
    else this.reads += 1;
    res.once('close', () => {
      if (mutating) this.writes -= 1;
      else this.reads -= 1;
    });
    return true;
  }

  /** Requests counted now: reads and writes. */
  get inFlight(): { reads: number; writes: number } {
    return { reads: this.reads, writes: this.writes };
  }
}
