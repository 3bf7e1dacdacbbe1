// The seeded differential fuzzer (spec/fuzz/) against the real kube-apiserver of `make test-real`: each seed's
// request sequence goes to a fresh embedded server and to kube-apiserver side by side, and every answer,
// stored object and watch event must match once normalised, except the documented differences of
// spec/fuzz/allow-list.ts. A divergence fails with the seed, the shrunk request sequence that reproduces it,
// both answers and the first differing path. `make fuzz-real SEED=… N=…` runs other seeds and lengths.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../fuzz/backend.js';
import { fuzzSeed, type SeedResult } from '../fuzz/fuzz.js';
import { kubeconfigBackend, startEmbedded } from '../fuzz/servers.js';
import { REAL_BACKEND } from './real-backend.js';

/** The seeds `make test-real` runs: enough requests to take every branch of the generator. */
const DEFAULT_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const DEFAULT_REQUESTS = 300;
/** Seeds run at once (each on its own embedded server and namespace). */
const PARALLEL = 2;

/** `FUZZ_SEED`: one seed, a list (`3,9`) or a range (`1-50`). */
function seedsFromEnv(): number[] {
  const spec = process.env.FUZZ_SEED ?? '';
  if (spec === '') return DEFAULT_SEEDS;
  return spec.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || !Number.isInteger(from))
      throw new Error(`FUZZ_SEED: "${part}" is not a seed or a range`);
    if (to === undefined) return [from];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

const seeds = seedsFromEnv();
const requests = Number(process.env.FUZZ_REQUESTS ?? '') || DEFAULT_REQUESTS;

describe.runIf(REAL_BACKEND)('the differential fuzzer against kube-apiserver', () => {
  let real: Backend;
  const results: SeedResult[] = [];

  beforeAll(async () => {
    real = await kubeconfigBackend();
  });

  afterAll(() => {
    real.close();
  });

  it(`finds no undocumented difference in ${String(seeds.length)} seeds × ${String(requests)} requests`, async () => {
    const started = Date.now();
    const queue = [...seeds];
    const worker = async (): Promise<void> => {
      for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
        const embedded = await startEmbedded();
        try {
          results.push(await fuzzSeed([embedded.backend, real], seed, { requests }));
        } finally {
          await embedded.close();
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, () => worker()));
    const compared = results.reduce((n, r) => n + r.compared, 0);
    const events = results.reduce((n, r) => n + r.events, 0);
    const allowed = new Map<string, number>();
    for (const r of results) for (const a of r.allowed) allowed.set(a.id, (allowed.get(a.id) ?? 0) + 1);
    const failed = results.filter((r) => r.report !== undefined).sort((a, b) => a.seed - b.seed);
    process.stderr.write(
      `[fuzz] ${String(results.length)} seeds, ${String(compared)} answers and ${String(events)} watch events compared in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        `allowed: ${[...allowed].map(([id, n]) => `${id} ×${String(n)}`).join(', ') || 'none'}; diverging seeds: ${failed.map((r) => r.seed).join(', ') || 'none'}\n`,
    );
    for (const r of failed) process.stderr.write(`\n${r.report ?? ''}\n`);
    expect(
      failed.map((r) => r.seed),
      'seeds that diverged (their reports are printed above)',
    ).toEqual([]);
  }, 3_600_000);
});
