import { createRequire } from 'node:module';

const requireModule = createRequire(import.meta.url);

type PromClient = typeof import('prom-client');

/**
 * The file of prom-client that defines each part reconcilekit uses, and the export's name in it (the
 * module itself when absent). prom-client's index loads every part at once — the Pushgateway's HTTP client,
 * the cluster aggregator and the default process metrics with OpenTelemetry (about 90 modules, 18 MiB and
 * 80–100 ms of CPU); the metric classes alone are 9 modules and under 1 MiB. A file is the same module
 * whichever way it is reached, so `instanceof` against a user's `import { Registry } from 'prom-client'`
 * holds.
 */
const PARTS: Partial<Record<keyof PromClient, [file: string, name?: string]>> = {
  Registry: ['prom-client/lib/registry'],
  register: ['prom-client/lib/registry', 'globalRegistry'],
  Counter: ['prom-client/lib/counter'],
  Gauge: ['prom-client/lib/gauge'],
  Histogram: ['prom-client/lib/histogram'],
  Summary: ['prom-client/lib/summary'],
  exponentialBuckets: ['prom-client/lib/bucketGenerators', 'exponentialBuckets'],
  linearBuckets: ['prom-client/lib/bucketGenerators', 'linearBuckets'],
  collectDefaultMetrics: ['prom-client/lib/defaultMetrics'],
};

let whole: PromClient | undefined;
const parts = new Map<string, unknown>();

/** One export of prom-client, loading only the file that defines it (the whole package for any other name). */
function part(name: string): unknown {
  if (parts.has(name)) return parts.get(name);
  const where = PARTS[name as keyof PromClient];
  let value: unknown;
  if (where === undefined) {
    whole ??= requireModule('prom-client') as PromClient;
    value = whole[name as keyof PromClient];
  } else {
    const mod = requireModule(where[0]) as Record<string, unknown>;
    value = where[1] === undefined ? mod : mod[where[1]];
  }
  parts.set(name, value);
  return value;
}

const facade = new Proxy({} as PromClient, {
  get: (_target, name) => (typeof name === 'string' ? part(name) : undefined),
});

/**
 * `prom-client`, each part loaded from its own file on first use: making a registry and metrics does not load
 * the default process metrics (and OpenTelemetry with them) until `collectDefaultMetrics` is called.
 */
export const promClient = (): PromClient => facade;
