import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { setEngineContext } from '../engine/context-keys.js';
import type { ControllerCore } from '../engine/controller-core.js';
import { addFinalizer, removeFinalizer } from '../engine/finalizers.js';
import type { PassBody } from '../engine/pass-body.js';
import { PassRunner, type FinalizerOps } from '../engine/pass-runner.js';
import { RemovedFinalizerMemory } from '../engine/removed-finalizer-memory.js';
import { errorMessage } from '../errors/error-message.js';
import type { InformerController } from '../informer-controller/informer-controller.js';
import { isTooManyRequests, retryAfterMs } from '../kube/api-error.js';
import type { ListOptions, ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import type { BackOffFactory } from '../util/backoff.js';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { objectKey, Store } from '../watch/store.js';
import { groupKind } from '../engine/source-set.js';
import { dryRunClient, type DryRunWrite } from './dry-run-client.js';
import { fieldDiff } from './field-diff.js';
import { currentScope, refusedOtherHost, withinScope, type GuardScope } from './http-guard.js';
import { NotPlannableError } from './planning-client.js';
import type { PlannedObject, PlannedPart, PlannedResource } from './plan.js';

function label(obj: KubernetesObject | undefined): string {
  const kind = obj?.kind ?? '(unknown kind)';
  const ns = obj?.metadata?.namespace;
  const name = obj?.metadata?.name ?? '';
  return ns === undefined || ns === '' ? `${kind} ${name}` : `${kind} ${ns}/${name}`;
}

/** One dry-run write as a planned part, or undefined when the server says it would change nothing. */
function partOf(w: DryRunWrite): PlannedPart | undefined {
  if (w.method === 'DELETE') {
    const gone = w.before ?? w.after;
    const part: PlannedPart = { part: 'delete', change: gone, diff: fieldDiff(gone, undefined) };
    if (w.before !== undefined) part.before = w.before;
    if (w.after !== undefined && w.after.metadata?.deletionTimestamp !== undefined) part.after = w.after;
    return part;
  }
  const diff = fieldDiff(w.before, w.after);
  if (w.before !== undefined && diff.length === 0) return undefined;
  const part: PlannedPart = { part: w.before === undefined ? 'create' : 'update', change: w.after, diff };
  if (w.before !== undefined) part.before = w.before;
  if (w.after !== undefined) part.after = w.after;
  return part;
}

/** The writes of one object's pass, grouped by the object they change (first write first). */
function resourcesOf(writes: readonly DryRunWrite[], path: 'update' | 'delete'): PlannedResource[] {
  const byObject = new Map<string, PlannedResource>();
  for (const w of writes) {
    const part = partOf(w);
    if (part === undefined) continue;
    const name = label(w.after ?? w.before);
    let r = byObject.get(name);
    if (r === undefined) {
      r = { resource: name, path, parts: [] };
      byObject.set(name, r);
    }
    r.parts.push(part);
  }
  return [...byObject.values()];
}

/** What planning one engine-driven controller needs. */
export interface PassPlanTarget<Obj extends KubernetesObject> {
  /** The controller's engine (its config, client and front end's pass body). */
  core: ControllerCore<Obj>;
  /** Reads of the watched objects go through it; every write through a dry-run view of it. */
  client: ObjectClient;
  /** The guard's view of the API server (`host:port`). */
  apiServer: string;
  namespace?: string;
  labelSelector?: string;
  signal?: AbortSignal;
  /** Objects planned at once. */
  concurrency: number;
}

/**
 * Plans a controller on the engine (`Controller`, the phase reconcilers): lists the watched objects and
 * runs, per object, the engine's pass — pause, finalizer add (or, while deleting, cleanup then finalizer
 * removal) and the front end's own pass body — once, with a client whose writes carry `dryRun=All`. What
 * the API server answers to each write is the plan. A write that bypasses the client is refused by the
 * HTTP guard and makes the object "not plannable".
 */
export async function planPasses<Obj extends KubernetesObject>(
  target: PassPlanTarget<Obj>,
): Promise<PlannedObject[]> {
  const { core } = target;
  const resource = core.config.resource;
  if (resource === undefined) {
    throw new InvalidConfigError(
      `plan: controller ${core.config.name} has no config.resource, so there is no object to plan for`,
    );
  }
  const listOpts: { labelSelector?: string; signal?: AbortSignal } = {};
  const selector = target.labelSelector ?? resource.labelSelector;
  if (selector !== undefined) listOpts.labelSelector = selector;
  if (target.signal !== undefined) listOpts.signal = target.signal;
  const namespaces = watchedNamespaces(resource, target.namespace);
  const items = await listWatched<Obj>(target.client, resource, namespaces, listOpts);
  const cache = await planCaches(target.client, {
    resource,
    items,
    owns: core.config.owns,
    namespaces,
    signal: target.signal,
  });
  return inParallel(items, target.concurrency, (obj) => planOne(target, obj, cache));
}

/** `fn` over `items`, at most `limit` at once, results in item order. */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/**
 * Plans an `InformerController`: lists each kind's sources and runs its watchers and reconcilers once per
 * object as on a first list (a `created` event), through a pass body of their own (no retries) and the
 * dry-run client. A handler's failed call is the object's error.
 */
export async function planInformer(
  controller: InformerController,
  target: Omit<PassPlanTarget<KubernetesObject>, 'core'>,
): Promise<PlannedObject[]> {
  const planning = controller.planning((err) => currentScope()?.errors?.push(err));
  const out: PlannedObject[] = [];
  for (const { kind, source } of planning.sources) {
    const selector = [source.labelSelector, target.labelSelector].filter((v) => v !== undefined && v !== '');
    const listOpts: ListOptions = {};
    if (selector.length > 0) listOpts.labelSelector = selector.join(',');
    if (source.fieldSelector !== undefined) listOpts.fieldSelector = source.fieldSelector;
    if (target.signal !== undefined) listOpts.signal = target.signal;
    const { labelSelector: _l, fieldSelector: _f, ...ref } = source;
    const items = await listWatched(
      target.client,
      ref,
      watchedNamespaces(source, target.namespace),
      listOpts,
    );
    const c = controller.config;
    out.push(
      ...(await inParallel(items, target.concurrency, (obj) =>
        planObjectPass(target, obj, {
          body: planning.body,
          key: planning.created(kind, obj),
          controller: c.name,
          finalizer: false,
          resource: undefined,
          pauseAnnotations: c.pauseAnnotations,
          backOffFactory: c.backOffFactory,
          forget: false,
        }),
      )),
    );
  }
  return out;
}

/** One object's pass as the engine would run it: the front end's body and the engine's settings. */
interface PassSpec<Obj extends KubernetesObject> {
  body: PassBody<Obj>;
  key: string;
  controller: string;
  finalizer: string | false;
  resource: ResourceRef | undefined;
  pauseAnnotations: readonly string[];
  backOffFactory: BackOffFactory;
  /** Drop what the body keeps for the key afterwards (the controller is not running). */
  forget: boolean;
  /** The engine's caches as the plan listed them (`cacheKey`). */
  cache?: (kind: string, apiVersion?: string) => Store | undefined;
}

function planOne<Obj extends KubernetesObject>(
  target: PassPlanTarget<Obj>,
  obj: Obj,
  cache: (kind: string, apiVersion?: string) => Store | undefined,
): Promise<PlannedObject> {
  const { core } = target;
  const c = core.config;
  return planObjectPass(target, obj, {
    body: core.passBody,
    key: objectKey(obj),
    controller: c.name,
    finalizer: c.finalizer,
    resource: c.resource,
    pauseAnnotations: c.pauseAnnotations,
    backOffFactory: c.backOffFactory,
    forget: !core.synced,
    cache,
  });
}

/** Plans one object's pass (see {@link planPasses}); exported for the informer controller's plan. */
export async function planObjectPass<Obj extends KubernetesObject>(
  target: Pick<PassPlanTarget<Obj>, 'client' | 'apiServer' | 'signal'>,
  obj: Obj,
  spec: PassSpec<Obj>,
): Promise<PlannedObject> {
  const planned: PlannedObject = {
    name: obj.metadata?.name ?? '',
    controller: spec.controller,
    kind: obj.kind ?? spec.resource?.kind ?? '',
    resources: [],
  };
  if (obj.metadata?.namespace !== undefined) planned.namespace = obj.metadata.namespace;
  const deleting = obj.metadata?.deletionTimestamp !== undefined;
  const writes: DryRunWrite[] = [];
  const client = dryRunClient(target.client, (w) => writes.push(w));
  const scope: GuardScope = { apiServer: target.apiServer, refused: [], errors: [] };
  const runner = dryRunPassRunner(spec, client, scope);
  const signal = target.signal ?? NEVER;
  try {
    await withinScope(scope, async () => {
      let outcome = await runner.reconcile(spec.key, obj, undefined, 0, signal);
      // The engine's pass that adds the finalizer ends there; the next pass runs on the patched object.
      // A plan has no next event, so it runs that pass at once on what the dry-run patch returned.
      if (outcome.result === 'success' && outcome.added !== undefined) {
        outcome = await runner.reconcile(spec.key, outcome.added as Obj, undefined, 0, signal);
      }
      if (outcome.result === 'success' && outcome.paused !== undefined) {
        planned.skipped = `paused (${outcome.paused.key})`;
      }
    });
  } catch (err) {
    scope.errors?.push(err);
  } finally {
    // The plan is not a pass of the controller: what the body remembers per key (state, last seen) goes.
    if (spec.forget) spec.body.forget?.(spec.key);
  }
  if (planned.skipped !== undefined) return planned;
  const failure = scope.errors?.find((e) => !(e instanceof NotPlannableError));
  if (scope.refused.length === 0 && failure !== undefined) {
    planned.error = errorMessage(failure);
  }
  planned.resources = resourcesOf(writes, deleting ? 'delete' : 'update');
  if (scope.refused.length > 0) {
    planned.resources.push({
      resource: scope.refused.join(', '),
      path: deleting ? 'delete' : 'update',
      parts: [],
      notPlannable: refusedOtherHost(scope.refused)
        ? 'the reconciler reached for another host than the API server (refused, nothing was sent)'
        : 'the reconciler wrote outside the planning client (refused, nothing was sent)',
    });
  }
  return planned;
}

const NEVER = new AbortController().signal;
const quiet: Logger = silentLogger();

/**
 * The engine's {@link PassRunner} with the plan's policy: writes through the dry-run client (finalizer
 * patches included), failures collected into the guard scope instead of logged, posted or written as a
 * condition, no metrics, no deletion memory carried between objects.
 */
function dryRunPassRunner<Obj extends KubernetesObject>(
  spec: PassSpec<Obj>,
  client: ObjectClient,
  scope: GuardScope,
): PassRunner<Obj> {
  const { finalizer, resource, backOffFactory } = spec;
  const finalizers: FinalizerOps<Obj> | undefined =
    finalizer === false || resource === undefined
      ? undefined
      : {
          add: (o, signal) => addFinalizer(client, resource, o, finalizer, backOffFactory, signal),
          remove: (o, signal) => removeFinalizer(client, resource, o, finalizer, backOffFactory, signal),
        };
  return new PassRunner<Obj>({
    body: spec.body,
    finalizer: finalizers === undefined ? false : finalizer,
    pauseAnnotations: spec.pauseAnnotations,
    logger: quiet,
    metrics: { observeReconcile: () => undefined },
    failures: {
      report: (_logger, _target, error) => {
        scope.errors?.push(error);
      },
    },
    memory: new RemovedFinalizerMemory(0),
    finalizers,
    reconcileTimeoutMs: 0,
    prepareContext: (ctx) => {
      setEngineContext(ctx, { client, cache: spec.cache });
    },
  });
}

/** What {@link planCaches} lists: the reconciled kind (already listed) and the owned kinds. */
export interface PlanCacheSpec {
  resource: ResourceRef;
  /** The reconciled objects the plan listed. */
  items: readonly KubernetesObject[];
  owns: readonly (ResourceRef & { namespaces?: readonly string[] })[];
  /**
   * The namespaces the plan listed the reconciled kind in (undefined: all): owned kinds without a namespace
   * of their own are listed there, as the running controller's informers follow the reconciled kind's.
   */
  namespaces: readonly string[] | undefined;
  signal: AbortSignal | undefined;
}

/** Where a watch of a kind looks: one namespace, several, or (undefined) all of them. */
interface NamespaceScope {
  namespace?: string | undefined;
  namespaces?: readonly string[] | undefined;
}

/**
 * The namespaces a controller's watch of a kind covers (its `namespaces`, else its `namespace`; undefined
 * means all), narrowed to the plan's `only` namespace: `[only]` where the watch covers it, else none —
 * a plan looks only where the running operator would.
 */
export function watchedNamespaces(
  scope: NamespaceScope,
  only: string | undefined,
): readonly string[] | undefined {
  const watched = scope.namespaces ?? (scope.namespace === undefined ? undefined : [scope.namespace]);
  if (only === undefined) return watched;
  return watched === undefined || watched.includes(only) ? [only] : [];
}

/** The objects of `ref` in each of `namespaces` (all namespaces when undefined), one list per namespace. */
export async function listWatched<T extends KubernetesObject = KubernetesObject>(
  client: ObjectClient,
  ref: ResourceRef & NamespaceScope,
  namespaces: readonly string[] | undefined,
  opts: ListOptions,
): Promise<T[]> {
  const { namespace: _one, namespaces: _several, ...kind } = ref;
  if (namespaces === undefined) return (await listThrottled(client, kind, opts)).items as T[];
  const items: T[] = [];
  for (const namespace of namespaces)
    items.push(...((await listThrottled(client, { ...kind, namespace }, opts)).items as T[]));
  return items;
}

/** How often a plan's list is tried when the API server answers 429 (client-go retries such answers too). */
const LIST_TRIES = 6;

/**
 * A list that waits out a 429 — kube-apiserver answers "storage is (re)initializing" for a kind whose
 * CRD was just established, and its priority and fairness throttles — as the running controller's
 * informers would: the server's `Retry-After` (at most 5 s, 1 s without one), {@link LIST_TRIES} tries.
 */
async function listThrottled(
  client: ObjectClient,
  ref: ResourceRef,
  opts: ListOptions,
): Promise<{ items: KubernetesObject[] }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.list(ref, opts);
    } catch (err) {
      if (!isTooManyRequests(err) || attempt >= LIST_TRIES || opts.signal?.aborted === true) throw err;
      const wait = Math.min(retryAfterMs(err) ?? 1_000, 5_000);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * The engine's `cacheKey` for a plan: a store of the reconciled kind (the listed objects) and one of each
 * owned kind, listed once at the start — so code reading children from the cache sees what the running
 * controller's informers would hold. Dry-run writes do not show in it (nothing is stored).
 */
export async function planCaches(
  client: ObjectClient,
  spec: PlanCacheSpec,
): Promise<(kind: string, apiVersion?: string) => Store | undefined> {
  const stores: { gk: string; store: Store }[] = [];
  const primary = new Store();
  for (const obj of spec.items) primary.set(obj);
  stores.push({ gk: groupKind(spec.resource.apiVersion, spec.resource.kind), store: primary });
  for (const owned of spec.owns) {
    const own = owned.namespace !== undefined || owned.namespaces !== undefined;
    const namespaces = own ? watchedNamespaces(owned, undefined) : spec.namespaces;
    const items = await listWatched(
      client,
      owned,
      namespaces,
      spec.signal === undefined ? {} : { signal: spec.signal },
    );
    const store = new Store();
    for (const obj of items) store.set(obj);
    stores.push({ gk: groupKind(owned.apiVersion, owned.kind), store });
  }
  return (kind, apiVersion) => {
    if (apiVersion !== undefined) return stores.find((s) => s.gk === groupKind(apiVersion, kind))?.store;
    return stores.find((s) => s.gk.endsWith(`/${kind}`))?.store;
  };
}
