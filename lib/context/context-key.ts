import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * A typed slot in a {@link ReconcileContext}. Keys compare by identity, not by name: two keys defined
 * with the same name never collide, and only code holding the key can read or write its value.
 * @category Reconcile context and flags
 */
export interface ContextKey<T> {
  /** Human-readable name, used in error messages and debugging only. */
  readonly name: string;
  /** Unique identity of the slot. */
  readonly id: symbol;
  /** Phantom field carrying the value type; never set. */
  readonly __valueType?: T;
}

/**
 * Defines a new typed context key (`const clientKey = defineContextKey<Client>('client')`).
 * @category Reconcile context and flags
 */
export function defineContextKey<T>(name: string): ContextKey<T> {
  if (typeof name !== 'string' || name === '') {
    throw new InvalidConfigError('defineContextKey(name): name must be a non-empty string');
  }
  return Object.freeze({ name, id: Symbol(name) });
}
