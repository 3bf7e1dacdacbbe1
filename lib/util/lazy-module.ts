import { createRequire } from 'node:module';

const requireModule = createRequire(import.meta.url);

/**
 * A package loaded on the first call instead of when the importing module loads, so importing
 * reconcilekit does not pay for what a program never uses (client-node's generated API, prom-client,
 * OpenTelemetry). Synchronous: `require` loads CommonJS packages and, since Node.js 20.19, ES modules. The caller
 * types the result as the package (`typeof import(...)`).
 */
export function lazyModule(name: string): () => unknown {
  let loaded: unknown;
  return () => {
    loaded ??= requireModule(name);
    return loaded;
  };
}
