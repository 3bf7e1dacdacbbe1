import { lazyModule } from './lazy-module.js';

/** The `yaml` package, loaded when the first document is read (see {@link lazyModule}). */
export const yamlModule = lazyModule('yaml') as () => typeof import('yaml');
