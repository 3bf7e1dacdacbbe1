import { defineConfig } from 'vitest/config';

/**
 * `make soak`: the long versions of the reliability scenarios (500 objects of chaos, 20 SIGKILLs, a 30 s
 * outage …), one file at a time so their figures are not skewed by each other. Not part of `make test`.
 */
export default defineConfig({
  test: {
    include: ['spec/reliability/soak/*.soak.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
