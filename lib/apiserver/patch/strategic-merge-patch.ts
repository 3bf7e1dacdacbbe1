import type { KindRef } from './kind-ref.js';

export type { KindRef } from './kind-ref.js';

export function applyStrategicMergePatch(_target: unknown, _patch: unknown, _kind: KindRef): unknown {
  throw new Error('not implemented');
}
