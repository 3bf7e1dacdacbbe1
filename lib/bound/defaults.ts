/**
 * Label `bindObject(...).create/apply` put on children: `<label>=<owner name>` (sequencer's `workspaces.sequencer.io/instance`).
 * @category Phases, status and guards
 */
export const DEFAULT_INSTANCE_LABEL = 'reconcilekit.io/instance';

/**
 * How long a `guard` lock holds before another pass may take it over: 10 minutes. Sequencer's locks never
 * expire, so a crash between lock and unlock left the condition Locked (and the operator requeueing every
 * second) forever; a guarded task that legitimately runs longer must raise `lockTtlMs`.
 * @category Phases, status and guards
 */
export const DEFAULT_GUARD_LOCK_TTL_MS = 600_000;

/**
 * Condition reason of a held lock (status `Unknown`; the message is the guard's reason).
 * @category Phases, status and guards
 */
export const LOCKED_REASON = 'Locked';

/**
 * Condition reason written when a guarded task fails (status `False`; the message is the error's).
 * @category Phases, status and guards
 */
export const ERROR_REASON = 'Error';

/**
 * Event reason of a lock taken over after its TTL (a Warning Event on the bound object).
 * @category Phases, status and guards
 */
export const LOCK_EXPIRED_REASON = 'LockExpired';
