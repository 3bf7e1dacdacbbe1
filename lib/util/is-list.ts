/**
 * Whether `value` is an array, without narrowing the caller's variable (`Array.isArray` narrows a typed
 * readonly array to `any[]`). Used to validate configuration that came from untyped JavaScript.
 */
export function isList(value: unknown): boolean {
  return Array.isArray(value);
}
