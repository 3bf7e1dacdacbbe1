/**
 * A status condition in the Kubernetes `metav1.Condition` shape.
 * @category Engine: Framework and ControllerCore
 */
export interface StatusCondition {
  /** Condition type in CamelCase, e.g. `Ready`. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: 'True' | 'False' | 'Unknown';
  /** Machine-readable CamelCase reason. */
  reason: string;
  /** Human-readable message. */
  message: string;
  /** The `.metadata.generation` the condition was computed from. */
  observedGeneration?: number;
  /** RFC 3339 time of the last status change. */
  lastTransitionTime: string;
}

/**
 * The condition fields a caller supplies; `lastTransitionTime` is managed by {@link setCondition}.
 * @category Engine: Framework and ControllerCore
 */
export type StatusConditionInput = Omit<StatusCondition, 'lastTransitionTime'> & {
  lastTransitionTime?: string;
};

/**
 * The condition of `type`, if present.
 * @category Engine: Framework and ControllerCore
 */
export function getCondition(
  conditions: readonly StatusCondition[] | undefined,
  type: string,
): StatusCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Whether the condition of `type` has status `True`.
 * @category Engine: Framework and ControllerCore
 */
export function isConditionTrue(conditions: readonly StatusCondition[] | undefined, type: string): boolean {
  return getCondition(conditions, type)?.status === 'True';
}

/**
 * A new conditions list with `condition` set: replaces the entry of the same type, keeping its
 * `lastTransitionTime` unless the status changed (as apimachinery's `SetStatusCondition`); appends it
 * otherwise. Never mutates `conditions`. Setting an identical condition returns an equal list, so a
 * status writer can compare and skip a no-op write.
 * @category Engine: Framework and ControllerCore
 */
export function setCondition(
  conditions: readonly StatusCondition[] | undefined,
  condition: StatusConditionInput,
  now: Date = new Date(),
): StatusCondition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === condition.type);
  const existing = index >= 0 ? list[index] : undefined;
  const transition =
    existing !== undefined && existing.status === condition.status
      ? existing.lastTransitionTime
      : (condition.lastTransitionTime ?? now.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  const next: StatusCondition = { ...condition, lastTransitionTime: transition };
  if (next.observedGeneration === undefined) delete next.observedGeneration;
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}

/**
 * A new conditions list without the condition of `type`.
 * @category Engine: Framework and ControllerCore
 */
export function removeCondition(
  conditions: readonly StatusCondition[] | undefined,
  type: string,
): StatusCondition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/**
 * {@link setCondition} that also says whether anything changed (sequencer's `SetCondition → changed`):
 * `changed` is false when a condition of the same type already has the same status, reason, message and
 * observedGeneration — then the returned list equals the input and a status writer can skip the write.
 * `lastTransitionTime` moves only when the status changes (or the condition is new).
 * @category Engine: Framework and ControllerCore
 */
export function upsertCondition(
  conditions: readonly StatusCondition[] | undefined,
  input: StatusConditionInput,
  now: Date = new Date(),
): { conditions: StatusCondition[]; changed: boolean } {
  const existing = getCondition(conditions, input.type);
  const changed =
    existing === undefined ||
    existing.status !== input.status ||
    existing.reason !== input.reason ||
    existing.message !== input.message ||
    existing.observedGeneration !== input.observedGeneration;
  if (!changed) return { conditions: [...(conditions ?? [])], changed };
  return { conditions: setCondition(conditions, input, now), changed };
}

/**
 * The first condition with `status`, if any (sequencer's `FindStatusCondition`).
 * @category Engine: Framework and ControllerCore
 */
export function findConditionByStatus(
  conditions: readonly StatusCondition[] | undefined,
  status: StatusCondition['status'],
): StatusCondition | undefined {
  return conditions?.find((c) => c.status === status);
}

/**
 * Whether the condition of `type` is present with `status` (apimachinery's `IsStatusConditionPresentAndEqual`).
 * @category Engine: Framework and ControllerCore
 */
export function isConditionPresentAndEqual(
  conditions: readonly StatusCondition[] | undefined,
  type: string,
  status: StatusCondition['status'],
): boolean {
  return getCondition(conditions, type)?.status === status;
}

/**
 * Whether at least one condition has `status`. False for an empty or missing list.
 * @category Engine: Framework and ControllerCore
 */
export function isAnyConditionWithStatus(
  conditions: readonly StatusCondition[] | undefined,
  status: StatusCondition['status'],
): boolean {
  return conditions?.some((c) => c.status === status) ?? false;
}

/**
 * Whether every condition has `status`. True for an empty or missing list (as the seed: vacuous truth).
 * @category Engine: Framework and ControllerCore
 */
export function areAllConditionsWithStatus(
  conditions: readonly StatusCondition[] | undefined,
  status: StatusCondition['status'],
): boolean {
  return (conditions ?? []).every((c) => c.status === status);
}
