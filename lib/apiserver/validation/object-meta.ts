import type { FieldCause } from '../field-cause.js';
import type { KindRef } from '../patch/kind-ref.js';

export function validateObjectMeta(
  _obj: Record<string, unknown>,
  _options: { kind: KindRef; namespaced: boolean; operation: 'create' | 'update' },
): FieldCause[] {
  throw new Error('not implemented');
}
