// Child process: imports one module into an otherwise empty process and reports what it cost. It imports
// nothing else (not even the bench's child helpers), so the baseline is a bare Node process.
// argv: <module specifier>, e.g. "reconcilekit". Message out (IPC): {type:'imported', ms, rssKiB, baseRssKiB,
// heapKiB}: the wall time of `await import(...)`, the RSS after it and before it, and the V8 heap in use after.
const specifier = process.argv[2];
if (specifier === undefined || specifier === '') throw new Error('usage: import-child <module>');
const baseRssKiB = process.memoryUsage.rss() / 1024;
const started = performance.now();
await import(specifier);
const ms = performance.now() - started;
process.send?.({
  type: 'imported',
  ms,
  rssKiB: process.memoryUsage.rss() / 1024,
  baseRssKiB,
  heapKiB: process.memoryUsage().heapUsed / 1024,
});
if (process.connected) process.disconnect();
