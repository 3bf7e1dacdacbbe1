/**
 * `ms` spread by ± `fraction` (0.1 → between 0.9 × ms and 1.1 × ms), so many timers started together do
 * not fire together. `random` is injectable for tests.
 * @category Utilities
 */
export function jitter(ms: number, fraction: number, random: () => number = Math.random): number {
  const spread = Math.min(Math.max(fraction, 0), 1);
  return ms * (1 - spread + 2 * spread * random());
}
