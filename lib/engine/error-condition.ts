import type { KubernetesObject } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ObjectRef, ResourceRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import { objectKey } from '../watch/store.js';
import { errorMessage, errorReason } from '../errors/error-message.js';
import {
  getCondition,
  removeCondition,
  setCondition,
  type StatusCondition,
  type StatusConditionInput,
} from '../status/status-conditions.js';

/**
 * Condition type the framework sets to False on a failing object (`config.errorCondition`): `Ready`.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_ERROR_CONDITION_TYPE = 'Ready';

/** metav1.Condition's limit on `message`. */
const MAX_MESSAGE_LENGTH = 32_768;

/**
 * What {@link ErrorConditionWriter} needs.
 * @category Engine: Framework and ControllerCore
 */
export interface ErrorConditionWriterOptions {
  /** API client for discovery, GET and the status patch. */
  client: ObjectClient;
  /** Condition type written, e.g. `Ready`. */
  type: string;
  /** The reconciled kind (its `plural` saves discovery). Default: each object's own apiVersion/kind. */
  resource?: { apiVersion: string; kind: string; plural?: string };
  /** Logger for failed writes (the per-reconcile logger is used when given). */
  logger: Logger;
}

/** The condition we last wrote on one object. */
interface Written {
  ref: ObjectRef;
  uid: string | undefined;
  condition: StatusConditionInput;
  /** resourceVersion the write was based on, and the one it produced: a cache at either is up to date. */
  versions: (string | undefined)[];
}

type WithConditions = KubernetesObject & { status?: { conditions?: StatusCondition[] } };

function sameCondition(a: StatusConditionInput | undefined, b: StatusConditionInput): boolean {
  return (
    a !== undefined &&
    a.type === b.type &&
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.observedGeneration === b.observedGeneration
  );
}

/**
 * Writes the error condition of failing objects: `<type>=False` with the error's
 * reason and message on the status subresource, in the background and best effort (a failed write is
 * logged, never a new error). Skipped when the object already carries the identical condition, so a
 * repeatedly failing object is written once per distinct error. Writes are merge patches guarded by
 * the object's resourceVersion (re-read once on a conflict), so they never overwrite a newer status.
 * After the next successful pass the condition is removed again — unless something (normally the
 * user's status resource, setting `Ready=True`) changed it since: then it is theirs.
 * @category Engine: Framework and ControllerCore
 */
export class ErrorConditionWriter {
  private readonly o: ErrorConditionWriterOptions;
  private readonly written = new Map<string, Written>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Per key, bumped by every outcome: a queued write for an outcome no longer the latest is dropped. */
  private readonly outcomes = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  private readonly statusServed = new Map<string, Promise<boolean>>();

  constructor(options: ErrorConditionWriterOptions) {
    this.o = options;
  }

  /** Records that a pass over `obj` failed with `error` (background; `signal` must outlive the pass). */
  failed(obj: KubernetesObject, error: unknown, logger: Logger, signal: AbortSignal): void {
    const message = errorMessage(error);
    const condition: StatusConditionInput = {
      type: this.o.type,
      status: 'False',
      reason: errorReason(error),
      message: message.length > MAX_MESSAGE_LENGTH ? message.slice(0, MAX_MESSAGE_LENGTH) : message,
    };
    const generation = obj.metadata?.generation;
    if (generation !== undefined) condition.observedGeneration = generation;
    const key = objectKey(obj);
    const seq = this.bump(key);
    this.enqueue(key, logger, () => this.write(obj, condition, seq, signal));
  }

  /** Records that a pass over `key` succeeded: removes the condition written on it, if still ours. */
  succeeded(key: string, signal: AbortSignal): void {
    if (!this.written.has(key) && !this.chains.has(key)) return;
    // A failure write still queued or in flight is dropped, then whatever it wrote is cleared.
    const seq = this.bump(key);
    this.enqueue(key, this.o.logger, () => this.clear(key, seq, signal));
  }

  private bump(key: string): number {
    const seq = (this.outcomes.get(key) ?? 0) + 1;
    this.outcomes.set(key, seq);
    return seq;
  }

  /** Resolves once every write started so far has settled. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** One write at a time per object, in order. */
  private enqueue(key: string, logger: Logger, work: () => Promise<void>): void {
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(work).catch((err: unknown) => {
      if (isNotFound(err)) logger.debug('object gone; error condition not written', { object: key, err });
      else logger.warn('failed to write the error condition', { object: key, type: this.o.type, err });
    });
    this.chains.set(key, next);
    this.pending.add(next);
    void next.finally(() => {
      this.pending.delete(next);
      if (this.chains.get(key) !== next) return;
      this.chains.delete(key);
      if (!this.written.has(key)) this.outcomes.delete(key);
    });
  }

  private async write(
    obj: KubernetesObject,
    condition: StatusConditionInput,
    seq: number,
    signal: AbortSignal,
  ): Promise<void> {
    const key = objectKey(obj);
    const stale = (): boolean => this.outcomes.get(key) !== seq;
    const uid = obj.metadata?.uid;
    const known = this.written.get(key);
    // Our own write is not in the cache yet: the object we were handed is the one we wrote over.
    if (
      known !== undefined &&
      known.uid === uid &&
      sameCondition(known.condition, condition) &&
      known.versions.includes(obj.metadata?.resourceVersion)
    ) {
      return;
    }
    if (stale() || !(await this.servesStatus(obj))) return;
    const ref = this.refOf(obj);
    let current = obj as WithConditions;
    for (let attempt = 0; ; attempt++) {
      if (stale()) return;
      const version = current.metadata?.resourceVersion;
      if (sameCondition(getCondition(current.status?.conditions, condition.type), condition)) {
        this.written.set(key, { ref, uid, condition, versions: [version] });
        return;
      }
      try {
        const patched = await this.patch(
          ref,
          version,
          setCondition(current.status?.conditions, condition),
          signal,
        );
        const versions = [version, patched.metadata?.resourceVersion];
        this.written.set(key, { ref, uid, condition, versions });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt > 0) throw err;
      }
      current = await this.o.client.get<WithConditions>(ref, { signal });
      if (current.metadata?.uid !== uid) return;
    }
  }

  private async clear(key: string, seq: number, signal: AbortSignal): Promise<void> {
    const written = this.written.get(key);
    if (written === undefined || this.outcomes.get(key) !== seq) return;
    this.written.delete(key);
    const ref = written.ref;
    let current: WithConditions;
    try {
      current = await this.o.client.get<WithConditions>(ref, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (current.metadata?.uid !== written.uid) return;
    if (!sameCondition(getCondition(current.status?.conditions, written.condition.type), written.condition))
      return;
    try {
      await this.patch(
        ref,
        current.metadata?.resourceVersion,
        removeCondition(current.status?.conditions, written.condition.type),
        signal,
      );
    } catch (err) {
      // Changed meanwhile (e.g. a new failure or the user's status): leave it to whoever wrote it.
      if (!isConflict(err)) throw err;
    }
  }

  private patch(
    ref: ObjectRef,
    resourceVersion: string | undefined,
    conditions: StatusCondition[],
    signal: AbortSignal,
  ): Promise<KubernetesObject> {
    const body: Record<string, unknown> = { status: { conditions } };
    if (resourceVersion !== undefined && resourceVersion !== '') body.metadata = { resourceVersion };
    return this.o.client.patch(ref, body, 'merge', { subresource: 'status', signal });
  }

  private refOf(obj: KubernetesObject): ObjectRef {
    const r = this.o.resource;
    const base: ResourceRef =
      r === undefined
        ? { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' }
        : { apiVersion: r.apiVersion, kind: r.kind, ...(r.plural === undefined ? {} : { plural: r.plural }) };
    const namespace = obj.metadata?.namespace;
    return {
      ...base,
      name: obj.metadata?.name ?? '',
      ...(namespace === undefined || namespace === '' ? {} : { namespace }),
    };
  }

  /** Whether the kind has a status subresource (discovery, once per kind; a failed lookup is retried). */
  private servesStatus(obj: KubernetesObject): Promise<boolean> {
    const ref = this.o.resource ?? { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
    if (ref.apiVersion === '' || ref.kind === '') return Promise.resolve(false);
    const id = `${ref.apiVersion}/${ref.kind}`;
    let known = this.statusServed.get(id);
    if (known === undefined) {
      known = this.o.client.hasSubresource(ref, 'status');
      this.statusServed.set(id, known);
      known.catch(() => this.statusServed.delete(id));
    }
    return known;
  }
}
