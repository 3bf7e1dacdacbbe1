import { lazyModule } from './lazy-module.js';

/** `winston`, loaded when the first logger is made (see {@link lazyModule}). */
export const winstonModule = lazyModule('winston') as () => typeof import('winston');
