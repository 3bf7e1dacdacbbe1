import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { defineContextKey } from './context-key.js';
import type { ReconcileContext } from './reconcile-context.js';

/**
 * A one-way boolean signal (false → true) carried by a {@link ReconcileContext}.
 *
 * `install` puts a fresh, unset flag into the context (the engine does this once per reconciliation, and
 * for `resourceCanceled` once per resource). `is` is false when the flag is not installed. `set` on a flag
 * that was never installed installs it already set: setting a flag is never a silent no-op. Setting is
 * idempotent; nothing can unset a flag except installing a fresh one.
 * @category Reconcile context and flags
 */
export interface Flag {
  /** Name used in logs and docs. */
  readonly name: string;
  /** Installs a fresh, unset flag, replacing any earlier one in this context's store. */
  install(ctx: ReconcileContext): void;
  /** Raises the flag (installing it first when needed). */
  set(ctx: ReconcileContext): void;
  /** Whether the flag is installed and raised. */
  is(ctx: ReconcileContext): boolean;
  /** Whether the flag is installed (raised or not). */
  isInstalled(ctx: ReconcileContext): boolean;
}

/**
 * Defines a new flag; user flags work exactly like the built-in ones.
 * @category Reconcile context and flags
 */
export function defineFlag(name: string): Flag {
  if (typeof name !== 'string' || name === '') {
    throw new InvalidConfigError('defineFlag(name): name must be a non-empty string');
  }
  // The stored value is the flag itself (true = raised): installing a flag costs no allocation, and the
  // engine installs six per reconciliation plus one per resource.
  const key = defineContextKey<boolean>(`flag:${name}`);
  return Object.freeze({
    name,
    install(ctx: ReconcileContext): void {
      ctx.set(key, false);
    },
    set(ctx: ReconcileContext): void {
      ctx.set(key, true);
    },
    is(ctx: ReconcileContext): boolean {
      return ctx.get(key) === true;
    },
    isInstalled(ctx: ReconcileContext): boolean {
      return ctx.get(key) !== undefined;
    },
  });
}
