import { createRequire } from 'node:module';

const requireBuiltin = createRequire(import.meta.url);

/**
 * `node:http` and `node:https`, loaded through `require`. An ES `import` of either makes Node build the
 * module's ES facade, which reads every export, including the lazy `WebSocket`, `CloseEvent` and
 * `MessageEvent` getters that load Node's bundled undici with web streams and zlib: about 60 ms of CPU when
 * `reconcilekit` is imported, for classes it never uses. The objects are the same either way (an ES default
 * import of a built-in is its `module.exports`).
 */
export const nodeHttp = requireBuiltin('node:http') as typeof import('node:http');
export const nodeHttps = requireBuiltin('node:https') as typeof import('node:https');
/** `node:tls` (already loaded by `node:https`), through `require` like the two above. */
export const nodeTls = requireBuiltin('node:tls') as typeof import('node:tls');
/** `node:net`, through `require` like the ones above (the plan command's connection guard patches its Socket). */
export const nodeNet = requireBuiltin('node:net') as typeof import('node:net');
