import * as v8 from 'node:v8';

/**
 * Environment variable that leaves V8's heap sizing as Node has it: `default`. Unset (or any other value):
 * the first informer of the process bounds the heap's growth (see {@link boundHeapGrowth}).
 * @category Watch and cache
 */
export const V8_HEAP_ENV = 'RECONCILEKIT_V8_HEAP';

/** A semi-space never grows past the size it has (1–4 MiB after start-up in Node 22 and 24). */
const YOUNG_FLAG = '--semi-space-growth-factor=1';
/** Old space is collected once it grows by half past what the last full collection left (Go's GOGC=50). */
const OLD_FLAG = '--heap-growing-percent=50';

let decided: { young: boolean; old: boolean } | undefined;

/**
 * Bounds how far V8's heap grows past the live objects, once per process; says which of the two bounds it set
 * (a bound the process was started with a flag for is left to that flag).
 *
 * Why: an informer's initial list is thousands of objects that all survive their first collections. V8
 * answers that by doubling each semi-space of the young generation up to 16 MiB (32 MiB of new space,
 * resident from then on), and lets old space grow up to four times past what its last full collection left
 * before the next one. An operator's cache is its live heap; the rest is short-lived request and response
 * objects that a small young generation collects as well. So: the young generation keeps the size it has
 * when the first informer starts (`--semi-space-growth-factor=1`), and old space grows by at most half past
 * the live objects (`--heap-growing-percent=50`, Go's `GOGC=50`; a controller-runtime operator runs with
 * `GOGC=100`, but its binary and idle process are half the size of Node's). Measured at 10,000 objects of
 * each of two kinds (workload 9): peak RSS 130 → 119 MiB from 100 to 50, CPU per object within the noise
 * of the machine (docs/benchmarks.md).
 *
 * Left alone: the young generation when `process.execArgv` or `NODE_OPTIONS` has a semi-space flag
 * (`--max-semi-space-size`, `--min-semi-space-size`, `--semi-space-growth-factor`), old space when they have
 * `--heap-growing-percent`, and both with {@link V8_HEAP_ENV}=`default`. V8 reads both flags each time it
 * sizes a space, so they take effect after start-up.
 */
export function boundHeapGrowth(): { young: boolean; old: boolean } {
  if (decided !== undefined) return decided;
  decided = { young: false, old: false };
  if (process.env[V8_HEAP_ENV] === 'default') return decided;
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  if (!/semi[-_]space/.test(given)) {
    v8.setFlagsFromString(YOUNG_FLAG);
    decided.young = true;
  }
  if (!/heap[-_]growing[-_]percent/.test(given)) {
    v8.setFlagsFromString(OLD_FLAG);
    decided.old = true;
  }
  return decided;
}
