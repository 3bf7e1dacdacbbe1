export function applyJsonPatch(_target: unknown, _operations: unknown): unknown {
  throw new Error('not implemented');
}
