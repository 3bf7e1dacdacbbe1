/** A label or field selector that does not parse or names an unsupported field; the server answers 400. */
export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

export function isSelectorError(e: unknown): e is SelectorError {
  return e instanceof SelectorError;
}
