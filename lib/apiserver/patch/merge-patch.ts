export function applyMergePatch(_target: unknown, _patch: unknown): unknown {
  throw new Error('not implemented');
}
