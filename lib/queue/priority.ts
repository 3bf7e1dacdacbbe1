/**
 * Order of a `WorkQueue`: priorities with aging, or plain FIFO.
 * @category Work queue
 */
export type WorkQueueOrder = 'priority' | 'fifo';

/** Every {@link WorkQueueOrder} (for checking a value from configuration). @category Work queue */
export const WORK_QUEUE_ORDERS: readonly WorkQueueOrder[] = Object.freeze(['priority', 'fifo']);

/**
 * Priority of user-visible work: watch events of the reconciled object or its children after the initial
 * list, `enqueue(key)`, short retries. controller-runtime's default priority (0).
 * @category Work queue
 */
export const DEFAULT_PRIORITY = 0;

/**
 * Priority of background work: the initial list, a new leadership term's keys, resyncs, retries after long
 * backoffs. controller-runtime's `handler.LowPriority` (-100).
 * @category Work queue
 */
export const LOW_PRIORITY = -100;

/** Default of `WorkQueueOptions.agingEvery`: one hand-out in four goes to the longest-waiting key. @category Work queue */
export const DEFAULT_AGING_EVERY = 4;

/** Default of `WorkQueueOptions.lowPriorityAfterMs`. @category Work queue */
export const DEFAULT_LOW_PRIORITY_AFTER_MS = 1_000;
