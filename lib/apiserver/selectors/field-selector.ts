import type { KindRef } from '../patch/kind-ref.js';

export interface FieldSelector {
  matches(obj: Record<string, unknown>): boolean;
  readonly empty: boolean;
}

export function parseFieldSelector(_text: string, _kind: KindRef): FieldSelector {
  throw new Error('not implemented');
}
