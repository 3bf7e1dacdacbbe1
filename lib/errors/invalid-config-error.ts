import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * A constructor or factory was given a configuration it cannot work with. The message names the field and what to change (`config.resourceSets must not be empty`).
 * @category Errors
 */
export class InvalidConfigError extends Error {
  readonly [ERROR_KIND] = 'InvalidConfig';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidConfigError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link InvalidConfigError}.
 * @category Errors
 */
export function isInvalidConfig(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof InvalidConfigError || hasKind(candidate, 'InvalidConfig'),
  );
}
