import { lazyModule } from './lazy-module.js';

/** `prom-client`, loaded when the first metric or registry is made (see {@link lazyModule}). */
export const promClient = lazyModule('prom-client') as () => typeof import('prom-client');
