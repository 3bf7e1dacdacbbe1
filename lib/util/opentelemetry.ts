import { lazyModule } from './lazy-module.js';

/** `@opentelemetry/api`, loaded when the first span or tracer is asked for (see {@link lazyModule}). */
export const otelApi = lazyModule('@opentelemetry/api') as () => typeof import('@opentelemetry/api');
