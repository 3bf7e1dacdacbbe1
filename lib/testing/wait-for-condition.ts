import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient } from '../kube/object-client.js';
import type { ObjectRef } from '../kube/resource-ref.js';
import { waitFor, type WaitForOptions } from './wait-for.js';

/** Options of {@link waitForCondition}. */
export interface WaitForConditionOptions extends WaitForOptions {
  /** Status the condition must have. Default `'True'`. */
  status?: 'True' | 'False' | 'Unknown';
  /**
   * Also require the condition (or `status.observedGeneration`) to describe the object's current
   * `metadata.generation`, so a stale condition from before the last spec change does not count.
   * Default true.
   */
  current?: boolean;
}

interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
}

interface WithConditions extends KubernetesObject {
  status?: { observedGeneration?: number; conditions?: Condition[] };
}

/**
 * Waits until the object `ref` names has the status condition `type` with the wanted status (`True` by
 * default) for its current generation, and resolves with the object as read then.
 */
export function waitForCondition<T extends KubernetesObject = KubernetesObject>(
  client: Pick<ObjectClient, 'get'>,
  ref: ObjectRef,
  type: string,
  options: WaitForConditionOptions = {},
): Promise<T> {
  const wanted = options.status ?? 'True';
  const current = options.current ?? true;
  const where = ref.namespace === undefined ? ref.name : `${ref.namespace}/${ref.name}`;
  return waitFor(
    async () => {
      const obj = await client.get<WithConditions>(
        ref,
        options.signal === undefined ? {} : { signal: options.signal },
      );
      const condition = obj.status?.conditions?.find((c) => c.type === type);
      if (condition?.status !== wanted) return undefined;
      if (current) {
        const generation = obj.metadata?.generation;
        const observed = condition.observedGeneration ?? obj.status?.observedGeneration;
        if (generation !== undefined && observed !== generation) return undefined;
      }
      return obj as unknown as T;
    },
    { description: `${ref.kind} ${where} condition ${type}=${wanted}`, ...options },
  );
}
