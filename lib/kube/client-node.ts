import { lazyModule } from '../util/lazy-module.js';

/**
 * `@kubernetes/client-node`, loaded on first use. Its entry loads its whole generated API (about 800
 * modules, 80 MiB of a process) although the engine sends its requests through its own transport, so the
 * modules the root entry loads take client-node's values through here (types stay `import type`).
 */
export const clientNode = lazyModule(
  '@kubernetes/client-node',
) as () => typeof import('@kubernetes/client-node');
