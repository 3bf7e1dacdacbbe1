import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

/**
 * Errors a declarative controller keeps for its status (dcontroller's 10).
 * @category Declarative operators
 */
export const MAX_CONTROLLER_ERRORS = 10;
/**
 * Messages longer than this are trimmed in status (dcontroller's 245).
 * @category Declarative operators
 */
export const MAX_ERROR_MESSAGE_LENGTH = 245;

/**
 * An error of one declarative controller, tagged with the operator and controller it belongs to.
 * `critical`: the controller cannot run (its spec is invalid) — status Ready False / NotReady.
 * @category Declarative operators
 */
export class ControllerError extends Error {
  readonly [ERROR_KIND] = 'DeclarativeController';

  constructor(
    readonly operator: string,
    readonly controller: string,
    /** What went wrong, without the operator and controller names. */
    readonly detail: string,
    readonly critical: boolean,
    options?: ErrorOptions,
  ) {
    super(`operator ${operator}, controller ${controller}: ${detail}`, options);
    this.name = 'ControllerError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link ControllerError}.
 * @category Declarative operators
 */
export function isControllerError(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof ControllerError || hasKind(c, 'DeclarativeController'));
}

/**
 * dcontroller's trim: a message over {@link MAX_ERROR_MESSAGE_LENGTH} characters becomes its first 119 +
 * `[...]` + its last 120 (counted in code points, so no character is cut in half; upstream slices bytes).
 * @category Declarative operators
 */
export function trimErrorMessage(message: string): string {
  const chars = Array.from(message); // code points, as documented
  if (chars.length <= MAX_ERROR_MESSAGE_LENGTH) return message;
  return `${chars.slice(0, 119).join('')}[...]${chars.slice(-120).join('')}`;
}

/** The last {@link MAX_CONTROLLER_ERRORS} errors of a controller, oldest first. */
export class ErrorHistory {
  private readonly entries: ControllerError[] = [];

  push(err: ControllerError): void {
    this.entries.push(err);
    if (this.entries.length > MAX_CONTROLLER_ERRORS) this.entries.shift();
  }

  get size(): number {
    return this.entries.length;
  }

  get hasCritical(): boolean {
    return this.entries.some((e) => e.critical);
  }

  /** Trimmed messages, oldest first (without the operator/controller prefix). */
  messages(): string[] {
    return this.entries.map((e) =>
      trimErrorMessage(e.message.replace(/^operator [^,]*, controller [^:]*: /, '')),
    );
  }
}
