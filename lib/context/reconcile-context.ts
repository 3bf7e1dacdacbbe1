import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { ContextKey } from './context-key.js';

/**
 * Options of {@link ReconcileContext}.
 * @category Reconcile context and flags
 */
export interface ReconcileContextOptions {
  /** Aborts the reconciliation (shutdown, lost leadership). Default: a signal that never aborts. */
  signal?: AbortSignal;
  /** Logger carrying the reconciliation's meta (controller, object …). Default: {@link silentLogger}. */
  logger?: Logger;
}

const NEVER_ABORTED = new AbortController().signal;

/** The fields a derived context copies. */
interface Derived {
  signal: AbortSignal;
  logger: Logger;
  values: Map<symbol, unknown>;
}

/**
 * Everything one reconciliation shares between the engine, its resource set and its resources: an
 * AbortSignal, a logger, and typed values (context flags among them).
 *
 * Values live in one store shared by every context derived with {@link withLogger}, so a value set (or a
 * flag raised) deep inside a resource is visible to the engine that created the context — information
 * flows back up, as with operatorkit's context channels. Derived contexts differ only in their logger,
 * which is how the `resource` and `function` keys reach a resource's log lines without leaking.
 * @category Reconcile context and flags
 */
export class ReconcileContext {
  /** Aborted when the reconciliation must stop (shutdown); async work should pass it on. */
  readonly signal: AbortSignal;
  /** Logger for this reconciliation (and, in derived contexts, for this resource and step). */
  readonly logger: Logger;
  private readonly values: Map<symbol, unknown>;

  constructor(options: ReconcileContextOptions = {}) {
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw new InvalidConfigError('options.signal must be an AbortSignal');
    }
    this.signal = options.signal ?? NEVER_ABORTED;
    this.logger = options.logger ?? silentLogger();
    this.values = new Map();
  }

  /** The value stored under `key`, or `undefined` when none was set. */
  get<T>(key: ContextKey<T>): T | undefined {
    return this.values.get(key.id) as T | undefined;
  }

  /** Whether a value (possibly `undefined`) was stored under `key`. */
  has(key: ContextKey<unknown>): boolean {
    return this.values.has(key.id);
  }

  /** Stores `value` under `key`, visible to every context sharing this one's store. */
  set<T>(key: ContextKey<T>, value: T): void {
    this.values.set(key.id, value);
  }

  /** A context sharing this one's signal and values, with another logger. */
  withLogger(logger: Logger): ReconcileContext {
    // No constructor call (it validates options) and no Object.assign: one object with three fields,
    // since the CRUD flow derives a context per resource and step.
    const derived = Object.create(ReconcileContext.prototype) as {
      -readonly [K in keyof Derived]: Derived[K];
    };
    derived.signal = this.signal;
    derived.logger = logger;
    derived.values = this.values;
    return derived as unknown as ReconcileContext;
  }

  /** Shorthand for `withLogger(this.logger.child(meta))`. */
  withLogMeta(meta: Record<string, unknown>): ReconcileContext {
    return this.withLogger(this.logger.child(meta));
  }
}
