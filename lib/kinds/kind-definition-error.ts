import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

/**
 * `defineKind` was given a definition the API server would refuse (a schema that is not structural, a
 * missing plural, two storage versions, …). Thrown when the kind is defined, not when its CRD is applied.
 * `field` names the place in the definition (`versions.v1.spec.ports.items`), `kind` the kind being
 * defined; the message says what to change.
 * @category Kinds
 */
export class KindDefinitionError extends Error {
  readonly [ERROR_KIND] = 'KindDefinition';
  /** The kind being defined (`Website`), or `''` when the definition has no kind. */
  readonly kind: string;
  /** Where in the definition: `plural`, `versions.v2.storage`, `versions.v1.spec.replicas`. */
  readonly field: string;

  constructor(kind: string, field: string, detail: string, options?: ErrorOptions) {
    super(`defineKind(${kind === '' ? '?' : kind}): ${field}: ${detail}`, options);
    this.name = 'KindDefinitionError';
    this.kind = kind;
    this.field = field;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link KindDefinitionError}.
 * @category Kinds
 */
export function isKindDefinitionError(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof KindDefinitionError || hasKind(candidate, 'KindDefinition'),
  );
}
