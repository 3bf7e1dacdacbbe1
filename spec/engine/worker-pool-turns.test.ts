// The workers leave the event loop's turn every PASSES_PER_TURN passes: a backlog of passes that make no
// request (cache reads, nothing to write) used to run in one turn, so timers and I/O waited for all of them.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ControllerMetrics } from '../../lib/observability/controller-metrics.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { ExponentialRateLimiter } from '../../lib/queue/rate-limiter.js';
import { PASSES_PER_TURN, WorkerPool } from '../../lib/engine/worker-pool.js';

describe('WorkerPool turns', () => {
  it('lets timers run between passes that make no request', async () => {
    const registry = new Registry();
    const keys = 2_000;
    let done = 0;
    let allDone!: () => void;
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const pool = new WorkerPool({
      name: 'turns',
      workers: 8,
      minIntervalMs: 0,
      rateLimiter: new ExponentialRateLimiter(),
      registry,
      metrics: new ControllerMetrics({ registry, controller: 'turns' }),
      logger: silentLogger(),
      // A pass with nothing to do: it resolves without any I/O.
      process: () => {
        done += 1;
        if (done === keys) allDone();
        return Promise.resolve();
      },
    });
    const abort = new AbortController();
    pool.start(
      abort.signal,
      Array.from({ length: keys }, (_, i) => `ns/k${String(i)}`),
    );
    const atTimer = await new Promise<number>((resolve) => {
      setTimeout(() => {
        resolve(done);
      }, 0);
    });
    await finished;
    await pool.close(1_000);
    expect(done).toBe(keys);
    // The timer came after a turn's worth of passes, long before the backlog was through.
    expect(atTimer).toBeGreaterThan(0);
    expect(atTimer).toBeLessThan(keys / 2);
    expect(atTimer).toBeLessThanOrEqual(PASSES_PER_TURN * 4);
  });
});
