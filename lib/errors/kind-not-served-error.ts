import { hasCause } from './has-cause.js';
import { InvalidConfigError } from './invalid-config-error.js';

/**
 * `start()` found that a watched kind is not served by the API server and that nothing will serve it: no
 * CustomResourceDefinition defines it (a typo in `apiVersion` or `kind`, or a CRD never installed). Thrown
 * at once instead of retrying until the cache sync timeout. The message names the kind, what the group
 * does serve, and what to do. An {@link InvalidConfigError}: start() does not retry it.
 * @category Errors
 */
export class KindNotServedError extends InvalidConfigError {
  constructor(
    /** The kind asked for, e.g. `Widget`. */
    readonly kind: string,
    /** Its apiVersion, e.g. `example.com/v1`. */
    readonly apiVersion: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'KindNotServedError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link KindNotServedError}.
 * @category Errors
 */
export function isKindNotServed(err: unknown): boolean {
  // The name also matches across duplicated module copies, where instanceof fails.
  return hasCause(
    err,
    (c) => c instanceof KindNotServedError || (c instanceof Error && c.name === 'KindNotServedError'),
  );
}
