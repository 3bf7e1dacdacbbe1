// `make test-browser`: the live view in a real headless chromium (Debian's, installed by
// scripts/install-browser.sh) driven by playwright-core. Not part of `make test` (its own include pattern).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/browser/**/*.browser.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
