// Shrinking a diverging sequence to a short prefix that still reproduces it: keep the diverging request,
// then drop chunks of the requests before it (halving the chunk size, as delta debugging does) while the
// replay still diverges at its last request on the same path.
import type { FuzzRequest, SentRequest } from './request.js';
import type { Divergence } from './run.js';

/** Replays a candidate sequence (in a fresh namespace): its first divergence and what it sent. */
export type Replay = (
  requests: readonly FuzzRequest[],
) => Promise<{ divergence: Divergence | undefined; sent: SentRequest[] }>;

export interface ShrinkResult {
  requests: FuzzRequest[];
  divergence: Divergence;
  /** What the replay of `requests` sent (empty when the original run is the best found). */
  sent: SentRequest[];
  replays: number;
}

/** Whether `d` is the same divergence as `target`, at the candidate's last request for answers. */
function same(d: Divergence | undefined, target: Divergence, length: number): d is Divergence {
  if (d === undefined || d.kind !== target.kind || d.path !== target.path) return false;
  return d.kind === 'watch' || d.index === length - 1;
}

/** Shrinks `requests` (whose run ended in `found`) within `maxReplays` replays. */
export async function shrink(
  requests: readonly FuzzRequest[],
  found: Divergence,
  replay: Replay,
  maxReplays = 80,
): Promise<ShrinkResult> {
  let replays = 0;
  let best: ShrinkResult = {
    requests: requests.slice(0, found.index + 1),
    divergence: found,
    sent: [],
    replays,
  };
  const tail = found.kind === 'answer' ? best.requests.slice(-1) : [];
  let rest = found.kind === 'answer' ? best.requests.slice(0, -1) : best.requests.slice();
  const attempt = async (candidate: FuzzRequest[]): Promise<boolean> => {
    replays++;
    const full = [...candidate, ...tail];
    const { divergence: d, sent } = await replay(full);
    if (!same(d, found, full.length)) return false;
    best = { requests: full, divergence: d, sent, replays };
    return true;
  };
  if (rest.length > 0 && (await attempt([]))) rest = [];
  let chunk = Math.ceil(rest.length / 2);
  while (chunk >= 1 && rest.length > 0 && replays < maxReplays) {
    let removed = false;
    for (let start = 0; start < rest.length && replays < maxReplays;) {
      const candidate = [...rest.slice(0, start), ...rest.slice(start + chunk)];
      if (await attempt(candidate)) {
        rest = candidate;
        removed = true;
      } else {
        start += chunk;
      }
    }
    if (!removed) chunk = Math.floor(chunk / 2);
    else chunk = Math.min(chunk, Math.ceil(rest.length / 2));
  }
  return { ...best, replays };
}
