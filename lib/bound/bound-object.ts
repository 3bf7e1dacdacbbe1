import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { DEFAULT_LOCKED_REQUEUE_MS } from '../errors/condition-locked-error.js';
import { isNotFound } from '../kube/api-error.js';
import {
  DEFAULT_FIELD_MANAGER,
  type DeleteOptions,
  type ListOptions,
  type ObjectClient,
  type ObjectList,
} from '../kube/object-client.js';
import type { ObjectRef, ResourceRef } from '../kube/resource-ref.js';
import type { RecordedEvent } from '../observability/event-recorder.js';
import { defaultBackOffFactory } from '../util/backoff.js';
import { clientKey, eventRecorderKey } from '../engine/context-keys.js';
import {
  validateConditionType,
  isValidConditionReason,
  boundConditionMessage,
  MAX_CONDITION_REASON_LENGTH,
} from '../status/condition-names.js';
import { setControllerReference } from '../status/controller-reference.js';
import { addFinalizer, removeFinalizer } from '../engine/finalizers.js';
import { hasFinalizer } from '../engine/finalizer-patch.js';
import {
  getCondition,
  setCondition,
  upsertCondition,
  type StatusCondition,
  type StatusConditionInput,
} from '../status/status-conditions.js';
import { StatusWriter } from '../status/status-writer.js';
import { DEFAULT_GUARD_LOCK_TTL_MS, DEFAULT_INSTANCE_LABEL, LOCK_EXPIRED_REASON } from './defaults.js';
import {
  checkLock,
  failedCondition,
  lockCondition,
  resultCondition,
  retriableRelease,
  stillOurs,
  taskError,
  type GuardOptions,
  type GuardTask,
} from './guard.js';
import { instanceLabelValue } from './instance-label.js';

/**
 * Where a bound object's Events go: the engine's recorder (`eventRecorderKey`) or any sink.
 * @category Phases, status and guards
 */
export type EventSink = (event: RecordedEvent, obj?: KubernetesObject) => void;

/**
 * Options of {@link bindObject}.
 * @category Phases, status and guards
 */
export interface BindObjectOptions {
  /** The one condition type this handle guards and updates (e.g. `Tunnel`); validated as metav1 does. */
  conditionType: string;
  /** API client. Default: the engine's (`ctx.get(clientKey)`). */
  client?: ObjectClient;
  /** Label put on children by `create`/`apply`, value = the owner's name; false: none. Default {@link DEFAULT_INSTANCE_LABEL}. */
  instanceLabel?: string | false;
  /** Field manager of `apply`. Default {@link DEFAULT_FIELD_MANAGER}. */
  fieldManager?: string;
  /** Event sink. Default: the engine's recorder when the context has one, else Events are only logged. */
  events?: EventSink;
  /** Age after which a held lock is taken over. Default {@link DEFAULT_GUARD_LOCK_TTL_MS} (10 min). */
  lockTtlMs?: number;
  /** Retry delay of {@link ConditionLockedError}. Default {@link DEFAULT_LOCKED_REQUEUE_MS} (1 s). */
  lockedRequeueMs?: number;
  /** Clock (tests). Default: `new Date()`. */
  now?: () => Date;
}

/** How many times the write that releases a lock re-reads the object after a conflict (the lock is ours). */
const RELEASE_ATTEMPTS = 5;

/**
 * A handle on one object bound to one condition (sequencer's `ProviderController`), for code that makes
 * external side effects: `guard` locks the condition with a resourceVersion-guarded write before the side
 * effect, so a stale object never reaches it. Every write through the handle refreshes {@link object}.
 * @category Phases, status and guards
 */
export class BoundObject<Obj extends KubernetesObject = KubernetesObject> {
  readonly conditionType: string;
  private current: Obj;
  private readonly ctx: ReconcileContext;
  private readonly client: ObjectClient;
  private readonly status: StatusWriter;
  private readonly o: BindObjectOptions;

  constructor(ctx: ReconcileContext, obj: Obj, options: BindObjectOptions) {
    validateConditionType(options.conditionType, 'bindObject options.conditionType');
    const client = options.client ?? ctx.get(clientKey);
    if (client === undefined) {
      throw new InvalidConfigError(
        'bindObject: no API client: pass options.client, or call it inside a reconcile (the engine sets clientKey)',
      );
    }
    if (obj.metadata?.name === undefined || obj.apiVersion === undefined || obj.kind === undefined) {
      throw new InvalidConfigError('bindObject: the object needs apiVersion, kind and metadata.name');
    }
    for (const key of ['lockTtlMs', 'lockedRequeueMs'] as const) {
      const v = options[key];
      if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
        throw new InvalidConfigError(`bindObject options.${key} must be a positive number of milliseconds`);
      }
    }
    this.ctx = ctx;
    this.client = client;
    this.o = options;
    this.conditionType = options.conditionType;
    this.current = structuredClone(obj);
    this.status = new StatusWriter({ client });
  }

  /** The object as of the last write through this handle (a private copy: the cache is never mutated). */
  get object(): Obj {
    return this.current;
  }

  /** The object's namespace (undefined for a cluster-scoped object). */
  get namespace(): string | undefined {
    const ns = this.current.metadata?.namespace;
    return ns === '' ? undefined : ns;
  }

  /** A copy of the bound condition, if the object has it. */
  condition(): StatusCondition | undefined {
    const c = getCondition(this.conditions(), this.conditionType);
    return c === undefined ? undefined : { ...c };
  }

  /**
   * Runs `task` under a lock on the bound condition:
   * 1. a lock younger than `lockTtlMs` → {@link ConditionLockedError} (task not run); an older one is taken
   *    over with a Warning Event `LockExpired`;
   * 2. the condition becomes `Unknown`/`Locked` (message = `reason`) in a write carrying this object's
   *    resourceVersion — a stale object fails here with {@link StaleObjectError}, before any side effect;
   * 3. `task` runs; its result becomes the condition; a thrown value (or an invalid result) becomes
   *    `False`/`Error` with the error text, and is rethrown (as an Error).
   * The write that releases the lock survives a conflict caused after the lock (it re-reads; the lock is ours).
   */
  async guard(reason: string, task: GuardTask, options: GuardOptions = {}): Promise<void> {
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new InvalidConfigError(
        'guard(reason, task): reason must be a non-empty string (e.g. "Creating tunnel")',
      );
    }
    if (typeof task !== 'function') {
      throw new InvalidConfigError(
        'guard(reason, task): task must be a function returning { status, reason }',
      );
    }
    const ttl = options.lockTtlMs ?? this.o.lockTtlMs ?? DEFAULT_GUARD_LOCK_TTL_MS;
    const requeue = options.lockedRequeueMs ?? this.o.lockedRequeueMs ?? DEFAULT_LOCKED_REQUEUE_MS;
    const now = this.now();
    const expired = checkLock(this.condition(), now, ttl, requeue);
    if (expired !== undefined) {
      this.event(
        'Warning',
        LOCK_EXPIRED_REASON,
        `lock on condition ${this.conditionType} held since ${expired.lastTransitionTime} ` +
          `('${expired.message}') outlived ${ttl} ms; taking it over for '${reason}'`,
      );
    }
    const generation = this.current.metadata?.generation;
    const lock = lockCondition(this.conditionType, reason, now, generation);
    await this.writeConditions(replaceCondition(this.conditions(), lock));
    let result: unknown;
    try {
      result = await task(this.ctx.signal);
    } catch (thrown) {
      const error = taskError(thrown, reason);
      await this.release(lock, failedCondition(this.conditionType, error, generation), error);
      throw error;
    }
    let next;
    try {
      next = resultCondition(this.conditionType, result, reason, generation);
    } catch (invalid) {
      const error = invalid as Error;
      await this.release(lock, failedCondition(this.conditionType, error, generation), error);
      throw error;
    }
    if (next.adjustedReason) {
      this.ctx.logger.warn('guarded task returned an invalid condition reason; written in a valid form', {
        condition: this.conditionType,
        written: next.condition.reason,
      });
    }
    await this.release(lock, next.condition, undefined);
  }

  /**
   * Sets the bound condition to `status`/`reason`/`message` (lastTransitionTime moves only when the status
   * changes) and writes it, resourceVersion-guarded; no write when nothing changed. An invalid reason (not
   * CamelCase, or over 1024 characters) is an {@link InvalidConfigError}; a conflict a {@link StaleObjectError}.
   */
  async updateCondition(status: StatusCondition['status'], reason: string, message = ''): Promise<void> {
    const given: unknown = status;
    if (given !== 'True' && given !== 'False' && given !== 'Unknown') {
      throw new InvalidConfigError(
        `updateCondition: status must be 'True', 'False' or 'Unknown', got ${JSON.stringify(given)}`,
      );
    }
    if (!isValidConditionReason(reason)) {
      const shown: unknown = reason;
      const text = typeof shown === 'string' && shown.length > 80 ? `${shown.slice(0, 80)}…` : shown;
      throw new InvalidConfigError(
        `updateCondition: reason ${JSON.stringify(text)} (${typeof shown === 'string' ? `${shown.length} characters` : typeof shown}) ` +
          `is not a valid condition reason: CamelCase letters, digits, _ , : — starting with a letter, at most ${MAX_CONDITION_REASON_LENGTH} characters`,
      );
    }
    const input = { type: this.conditionType, status, reason, message: boundConditionMessage(message) };
    const generation = this.current.metadata?.generation;
    const { conditions, changed } = upsertCondition(
      this.conditions(),
      generation === undefined ? input : { ...input, observedGeneration: generation },
      this.now(),
    );
    if (changed) await this.writeConditions(conditions);
  }

  /** Replaces the object's whole `status` (sequencer's `Update`) and writes it if it changed, resourceVersion-guarded. */
  async updateStatus(status: unknown): Promise<void> {
    const next = structuredClone(this.current) as Obj & { status?: unknown };
    next.status = structuredClone(status);
    const written = await this.status.writeIfChanged(
      (this.current as { status?: unknown }).status,
      next,
      this.ctx.signal,
    );
    if (written !== undefined) this.current = written;
  }

  /** Creates `child` in this object's namespace, controlled by it (blockOwnerDeletion) and carrying the instance label. */
  async create<C extends KubernetesObject>(child: C, options: { signal?: AbortSignal } = {}): Promise<C> {
    return this.client.create(this.adopt(child), { signal: options.signal ?? this.ctx.signal });
  }

  /**
   * Server-side applies `child`, adopted as by {@link create}: fields it sets are owned by the field
   * manager, fields it no longer sets are removed; conflicts with other managers fail unless `force`.
   */
  async apply<C extends KubernetesObject>(
    child: C,
    options: { force?: boolean; fieldManager?: string; signal?: AbortSignal } = {},
  ): Promise<C> {
    const opts: { fieldManager: string; force?: boolean; signal: AbortSignal } = {
      fieldManager: options.fieldManager ?? this.o.fieldManager ?? DEFAULT_FIELD_MANAGER,
      signal: options.signal ?? this.ctx.signal,
    };
    if (options.force !== undefined) opts.force = options.force;
    return this.client.apply(this.adopt(child), opts);
  }

  /** Deletes `child` (an object or a reference; namespace defaults to this object's). NotFound is success. */
  async delete(child: KubernetesObject | ObjectRef, options: DeleteOptions = {}): Promise<void> {
    const ref = this.refOf(child);
    try {
      await this.client.delete(ref, { ...options, signal: options.signal ?? this.ctx.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Adds finalizer `name` (resourceVersion-guarded, re-read on conflict). False: already there or deleting — no write. */
  async addFinalizer(name: string): Promise<boolean> {
    validateFinalizer(name);
    if (hasFinalizer(this.current, name)) return false;
    const result = await addFinalizer(
      this.client,
      this.resource(),
      this.current,
      name,
      defaultBackOffFactory,
      this.ctx.signal,
    );
    if (result.outcome !== 'added') return false;
    this.current = result.object as Obj;
    return true;
  }

  /** Removes finalizer `name` only (others stay). False: it was not there — no write. */
  async removeFinalizer(name: string): Promise<boolean> {
    validateFinalizer(name);
    if (!hasFinalizer(this.current, name)) return false;
    const removed = await removeFinalizer(
      this.client,
      this.resource(),
      this.current,
      name,
      defaultBackOffFactory,
      this.ctx.signal,
    );
    try {
      this.current = await this.client.get<Obj>(this.ref(), { signal: this.ctx.signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const copy = structuredClone(this.current);
      copy.metadata ??= {};
      copy.metadata.finalizers = (copy.metadata.finalizers ?? []).filter((f) => f !== name);
      this.current = copy;
    }
    return removed;
  }

  /** Records an Event on this object (always this object: sequencer's `Event`). */
  event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    const sink = this.o.events ?? defaultSink(this.ctx);
    if (sink === undefined) {
      this.ctx.logger.info('event (no recorder)', { type, reason, message });
      return;
    }
    sink({ type, reason, message }, this.current);
  }

  /** Reads any object. */
  get<T extends KubernetesObject>(ref: ObjectRef): Promise<T> {
    return this.client.get<T>(ref, { signal: this.ctx.signal });
  }

  /** Lists any kind. */
  list<T extends KubernetesObject>(ref: ResourceRef, options: ListOptions = {}): Promise<ObjectList<T>> {
    return this.client.list<T>(ref, { signal: this.ctx.signal, ...options });
  }

  private now(): Date {
    return this.o.now?.() ?? new Date();
  }

  private conditions(): StatusCondition[] | undefined {
    return (this.current as { status?: { conditions?: StatusCondition[] } }).status?.conditions;
  }

  /** Writes `conditions` into status (resourceVersion-guarded; StaleObjectError on conflict). */
  private async writeConditions(conditions: StatusCondition[]): Promise<void> {
    const next = structuredClone(this.current) as Obj & { status?: Record<string, unknown> };
    next.status = { ...(next.status ?? {}), conditions };
    this.current = await this.status.write(next, this.ctx.signal);
  }

  /**
   * Replaces our lock with `condition`, so a lock is never left behind:
   * - a conflict happened after the lock (something else wrote the object meanwhile): the object is
   *   re-read and, while the lock is still ours, the write retried;
   * - the server refuses the condition (e.g. a 422 from a stricter CRD schema): a plain False/`Error`
   *   condition naming the refusal is written instead, and the refusal is thrown (unless the task failed:
   *   then the task's error wins and the refusal is logged).
   */
  private async release(
    lock: StatusCondition,
    condition: StatusConditionInput,
    taskFailure: Error | undefined,
  ): Promise<void> {
    let refusal: unknown;
    try {
      await this.writeOver(lock, condition);
      return;
    } catch (err) {
      if (isNotFound(err)) return;
      refusal = err;
    }
    const fallback = failedCondition(
      this.conditionType,
      new Error(`the guard could not record its result: ${errorText(refusal)}`),
      this.current.metadata?.generation,
    );
    try {
      await this.writeOver(lock, fallback);
    } catch (err) {
      if (!isNotFound(err)) {
        this.ctx.logger.error('failed to release the guard lock; it expires after its TTL', {
          condition: this.conditionType,
          err,
        });
      }
    }
    if (taskFailure === undefined) throw refusal;
    this.ctx.logger.error('failed to record the failure of a guarded task', {
      condition: this.conditionType,
      err: refusal,
      taskError: taskFailure,
    });
  }

  /** Writes `condition` over our lock, re-reading after a conflict while the lock is still ours. */
  private async writeOver(lock: StatusCondition, condition: StatusConditionInput): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.writeConditions(setCondition(this.conditions(), condition, this.now()));
        return;
      } catch (err) {
        if (!retriableRelease(err) || attempt >= RELEASE_ATTEMPTS) throw err;
      }
      const fresh = await this.client.get<Obj>(this.ref(), { signal: this.ctx.signal, live: true });
      if (fresh.metadata?.uid !== this.current.metadata?.uid) return;
      this.current = fresh;
      if (!stillOurs(this.condition(), lock)) {
        this.ctx.logger.warn('guard lock was taken over while the task ran; result not written', {
          condition: this.conditionType,
          lockedAt: lock.lastTransitionTime,
        });
        return;
      }
    }
  }

  /** A copy of `child` in our namespace, controlled by us, with the instance label. */
  private adopt<C extends KubernetesObject>(child: C): C {
    const copy = structuredClone(child);
    copy.metadata ??= {};
    const ns = this.namespace;
    if (ns !== undefined) {
      const childNs = copy.metadata.namespace;
      if (childNs !== undefined && childNs !== '' && childNs !== ns) {
        throw new InvalidConfigError(
          `bound object ${ns}/${this.current.metadata?.name ?? ''} cannot own ${copy.kind ?? 'an object'} ` +
            `${childNs}/${copy.metadata.name ?? ''}: children live in the owner's namespace`,
        );
      }
      copy.metadata.namespace = ns;
    }
    const label = this.o.instanceLabel ?? DEFAULT_INSTANCE_LABEL;
    if (label !== false) {
      copy.metadata.labels = {
        ...(copy.metadata.labels ?? {}),
        [label]: instanceLabelValue(this.current.metadata?.name ?? ''),
      };
    }
    return setControllerReference(this.current, copy);
  }

  private refOf(child: KubernetesObject | ObjectRef): ObjectRef {
    if ('name' in child && typeof child.name === 'string') {
      const ref: ObjectRef = { ...child };
      if (ref.namespace === undefined && this.namespace !== undefined) ref.namespace = this.namespace;
      return ref;
    }
    const obj = child as KubernetesObject;
    if (obj.apiVersion === undefined || obj.kind === undefined || obj.metadata?.name === undefined) {
      throw new InvalidConfigError('delete(child): the child needs apiVersion, kind and metadata.name');
    }
    const ref: ObjectRef = { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name };
    const ns = obj.metadata.namespace ?? this.namespace;
    if (ns !== undefined && ns !== '') ref.namespace = ns;
    return ref;
  }

  private resource(): ResourceRef {
    return { apiVersion: this.current.apiVersion ?? '', kind: this.current.kind ?? '' };
  }

  private ref(): ObjectRef {
    const ref: ObjectRef = { ...this.resource(), name: this.current.metadata?.name ?? '' };
    if (this.namespace !== undefined) ref.namespace = this.namespace;
    return ref;
  }
}

/**
 * Binds `obj` and one condition type to a handle for guarded side effects (see {@link BoundObject}).
 * Throws {@link InvalidConfigError} for an invalid condition type or when no client is available.
 * @category Phases, status and guards
 */
export function bindObject<Obj extends KubernetesObject>(
  ctx: ReconcileContext,
  obj: Obj,
  options: BindObjectOptions,
): BoundObject<Obj> {
  return new BoundObject(ctx, obj, options);
}

function replaceCondition(
  list: readonly StatusCondition[] | undefined,
  condition: StatusCondition,
): StatusCondition[] {
  const next = (list ?? []).filter((c) => c.type !== condition.type);
  next.push(condition);
  return next;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : JSON.stringify(err);
}

function validateFinalizer(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name === '') {
    throw new InvalidConfigError('finalizer name must be a non-empty string (e.g. example.com/cleanup)');
  }
}

function defaultSink(ctx: ReconcileContext): EventSink | undefined {
  return ctx.get(eventRecorderKey);
}
