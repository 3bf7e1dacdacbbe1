import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { installFlags } from '../context/flags.js';
import { ReconcileContext } from '../context/reconcile-context.js';
import { Controller } from '../controller/controller.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { setEngineContext } from '../engine/context-keys.js';
import type { ControllerCore } from '../engine/controller-core.js';
import { Framework } from '../crud/framework.js';
import { errorMessage } from '../errors/error-message.js';
import { InformerController } from '../informer-controller/informer-controller.js';
import { makeClient } from '../kube/make-client.js';
import type { ObjectClient } from '../kube/object-client.js';
import { Operator } from '../operator/operator.js';
import type { Store } from '../watch/store.js';
import { CRUDResource } from '../crud/resource/crud-resource.js';
import { PATCH_PARTS, type Patch, type PatchPart } from '../crud/resource/patch.js';
import { dryRunClient } from './dry-run-client.js';
import { fieldDiff, type FieldChange } from './field-diff.js';
import {
  apiServerHost,
  installHttpGuard,
  refusedOtherHost,
  withinScope,
  type GuardScope,
} from './http-guard.js';
import {
  inParallel,
  listWatched,
  planCaches,
  planInformer,
  planPasses,
  watchedNamespaces,
} from './plan-passes.js';
import { NotPlannableError, planningClient } from './planning-client.js';

/**
 * Options of {@link plan}.
 * @category Plan
 */
export interface PlanOptions {
  /** API server to plan against. Default: the framework's. */
  kubeConfig?: KubeConfig;
  /**
   * Only objects in this namespace, where the operator watches it (a resource with `namespace` or
   * `namespaces` that does not include it plans nothing). Default: every namespace the operator watches.
   */
  namespace?: string;
  /** Only objects matching this label selector. Default: the framework's, else all. */
  labelSelector?: string;
  /** Aborts the plan. */
  signal?: AbortSignal;
  /** Objects planned at once. Default: the controller's (framework's) `workers`. */
  concurrency?: number;
}

/**
 * One part of a planned patch: the change value the apply step would get and, for Kubernetes objects,
 * the fields it changes against the resource's current state.
 * @category Plan
 */
export interface PlannedPart {
  part: PatchPart;
  change: unknown;
  diff?: FieldChange[];
  /** The object as it is now (updates and deletes of Kubernetes objects). */
  before?: unknown;
  /** The object as the change would leave it (creates and updates of Kubernetes objects). */
  after?: unknown;
}

/**
 * What one resource would do for one object.
 * @category Plan
 */
export interface PlannedResource {
  /** The CRUD resource's name; for a reconcile-function controller, the object written (`Kind ns/name`). */
  resource: string;
  /** `update` (ensureCreated) or `delete` (the object is being deleted). */
  path: 'update' | 'delete';
  parts: PlannedPart[];
  /** Why this resource could not be planned (not a CRUD resource, or its code wrote to the API). */
  notPlannable?: string;
}

/**
 * The plan for one watched object.
 * @category Plan
 */
export interface PlannedObject {
  namespace?: string;
  name: string;
  /** The controller that planned it (its `name`), when planning an Operator or a `Controller`. */
  controller?: string;
  /** The watched object's kind (reconcile-function controllers). */
  kind?: string;
  /** Why the object was not planned at all (e.g. paused). */
  skipped?: string;
  /** Index of the resource set handling the object (in the router's order). */
  resourceSet?: number;
  resources: PlannedResource[];
  /** What went wrong planning this object (a step threw, no resource set, …). */
  error?: string;
}

/**
 * The result of {@link plan}.
 * @category Plan
 */
export interface Plan {
  objects: PlannedObject[];
  /** Number of planned parts over all objects. */
  changes: number;
  /** Objects with an error or a not-plannable resource. */
  errors: number;
}

function isKubeObject(v: unknown): v is KubernetesObject {
  return typeof v === 'object' && v !== null && 'apiVersion' in v && 'kind' in v;
}

function sameObject(a: unknown, b: KubernetesObject): boolean {
  return isKubeObject(a) && a.kind === b.kind && a.metadata?.name === b.metadata?.name;
}

function partsOf(patch: Patch | undefined | null, current: unknown): PlannedPart[] {
  if (patch === undefined || patch === null) return [];
  return PATCH_PARTS.filter((p) => patch.has(p)).map((part) => {
    const change = patch.get(part);
    const planned: PlannedPart = { part, change };
    if (isKubeObject(change)) {
      const before = part === 'create' || !sameObject(current, change) ? undefined : current;
      planned.diff = part === 'delete' ? fieldDiff(change, undefined) : fieldDiff(before, change);
      if (part === 'delete') planned.before = change;
      else {
        if (before !== undefined) planned.before = before;
        planned.after = change;
      }
    } else if (part === 'update' && current !== undefined && current !== null) {
      // Not a Kubernetes object (a file, a remote record): the resource's current state is the before.
      planned.before = current;
      planned.after = change;
    }
    return planned;
  });
}

/**
 * The object a create or update part would leave on the server, with its defaults (what a plain diff of
 * the resource's desired object would show as removed: `imagePullPolicy`, `protocol`, …): the API server's
 * answer to the change sent with `dryRun=All` (create, or replace at the current resourceVersion). When the
 * server refuses it, the part keeps the change as its after and the diff against it.
 */
async function serverAfter(part: PlannedPart, server: ObjectClient, signal: AbortSignal): Promise<void> {
  const change = part.change;
  if (!isKubeObject(change) || (part.part !== 'create' && part.part !== 'update')) return;
  try {
    let answer: KubernetesObject;
    if (part.part === 'create') answer = await server.create(change, { signal });
    else {
      const rv = (part.before as KubernetesObject | undefined)?.metadata?.resourceVersion;
      const sent = structuredClone(change);
      if (rv !== undefined) {
        sent.metadata ??= {};
        sent.metadata.resourceVersion = rv;
      }
      answer = await server.replace(sent, { signal });
    }
    part.after = answer;
    part.diff = fieldDiff(part.before, answer);
  } catch {
    // e.g. a create of something that exists, a field the server does not know: keep the change as is.
  }
}

/** A step of a planned resource threw; the message names the resource and the step. */
class PlanStepError extends Error {
  override readonly name = 'PlanStepError';
}

async function planResource(
  resource: unknown,
  ctx: ReconcileContext,
  obj: KubernetesObject,
  path: 'update' | 'delete',
  server: ObjectClient,
): Promise<PlannedResource> {
  const name = (resource as { name?: string }).name ?? '(unnamed)';
  if (!(resource instanceof CRUDResource)) {
    return {
      resource: name,
      path,
      parts: [],
      notPlannable: 'not a CRUDResource: its effects are not computed apart from applying them',
    };
  }
  const ops = (resource as CRUDResource).ops;
  let step = 'getCurrentState';
  try {
    const current = await ops.getCurrentState(ctx, obj);
    step = 'getDesiredState';
    const desired = await ops.getDesiredState(ctx, obj);
    step = path === 'update' ? 'newUpdatePatch' : 'newDeletePatch';
    const patch =
      path === 'update'
        ? await ops.newUpdatePatch(ctx, obj, current, desired)
        : await ops.newDeletePatch(ctx, obj, current, desired);
    const parts = partsOf(patch, current);
    for (const part of parts) await serverAfter(part, server, ctx.signal);
    return { resource: name, path, parts };
  } catch (err) {
    if (err instanceof NotPlannableError)
      return { resource: name, path, parts: [], notPlannable: err.message };
    // Say where: the object's error reads `resource "greeting-configmap" getDesiredState: <message>`.
    throw new PlanStepError(`resource "${name}" ${step}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Anything {@link plan} plans. */
export type Plannable =
  Framework<never> | Controller<never> | InformerController | Operator | PlannableEngine;

/** A front end on the engine exposing it as `core` or `engine` (e.g. `InformerController`). */
interface PlannableEngine {
  readonly core?: unknown;
  readonly engine?: unknown;
}

/**
 * What `target` would change, object by object, without changing anything.
 *
 * - A `Framework`: lists the watched objects, routes each to its resource set and runs each CRUD
 *   resource's getCurrentState, getDesiredState and newUpdatePatch (newDeletePatch for objects being
 *   deleted) — never the apply steps. User code gets a client that reads normally and refuses every write
 *   ({@link NotPlannableError} → "not plannable").
 * - A `Controller` (reconcile functions, the phase reconcilers): runs the engine's pass once per watched
 *   object with a client whose writes carry `dryRun=All`, and reports what the API server says each
 *   create, update, patch and delete would produce.
 * - An `Operator`: each of its controllers, as above.
 *
 * While it runs, outgoing HTTP (node:http, node:https, fetch) made on behalf of a planned object is
 * guarded: a mutating request that is not a dry-run write to the API server is refused and the object
 * reported "not plannable".
 * @category Plan
 */
export async function plan(target: Plannable, options: PlanOptions = {}): Promise<Plan> {
  const uninstall = installHttpGuard();
  try {
    const objects = await planTarget(target, options);
    let changes = 0;
    let errors = 0;
    for (const o of objects) {
      for (const r of o.resources) changes += r.parts.length;
      if (o.error !== undefined || o.resources.some((r) => r.notPlannable !== undefined)) errors++;
    }
    return { objects, changes, errors };
  } finally {
    uninstall();
  }
}

function engineOf(target: unknown): ControllerCore | undefined {
  if (target instanceof Controller) return target.core as ControllerCore;
  const engine = (target as PlannableEngine | null)?.engine;
  if (typeof engine === 'object' && engine !== null && 'passBody' in engine) return engine as ControllerCore;
  return undefined;
}

async function planTarget(target: unknown, options: PlanOptions): Promise<PlannedObject[]> {
  if (target instanceof Framework) return planFramework(target as Framework, options);
  if (target instanceof Operator) {
    const out: PlannedObject[] = [];
    for (const controller of target.controllers) {
      const objects = await planTarget(controller, options);
      const name = (controller as { name?: string }).name;
      for (const o of objects) if (o.controller === undefined && name !== undefined) o.controller = name;
      out.push(...objects);
    }
    return out;
  }
  if (target instanceof InformerController) {
    const client = connect(target.name, target.client, options);
    return planInformer(target, {
      client,
      apiServer: apiServerHost(client.transport.server),
      ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
      ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      concurrency: options.concurrency ?? target.config.workers,
    });
  }
  const core = engineOf(target);
  if (core === undefined) {
    throw new InvalidConfigError(
      'plan(target): give a Framework, a Controller, an InformerController or an Operator (built, not started)',
    );
  }
  const client = connect(core.config.name, core.client, options);
  return planPasses({
    core,
    client,
    apiServer: apiServerHost(client.transport.server),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
    ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    concurrency: options.concurrency ?? core.config.workers,
  });
}

function connect(name: string, own: ObjectClient | undefined, options: PlanOptions): ObjectClient {
  const real = options.kubeConfig !== undefined ? makeClient(name, options.kubeConfig, true) : own;
  if (real === undefined) throw new InvalidConfigError('plan: no API connection (give options.kubeConfig)');
  return real;
}

async function planFramework<Obj extends KubernetesObject>(
  framework: Framework<Obj>,
  options: PlanOptions,
): Promise<PlannedObject[]> {
  const { config } = framework;
  const resource = config.resource;
  if (resource === undefined) {
    throw new InvalidConfigError(
      'plan: the framework has no config.resource, so there is no object to plan for',
    );
  }
  const real = connect(config.name, framework.client, options);
  const client = planningClient(real);
  const server = dryRunClient(real, () => undefined);
  const apiServer = apiServerHost(real.transport.server);
  const listOpts: { labelSelector?: string; signal?: AbortSignal } = {};
  const selector = options.labelSelector ?? resource.labelSelector;
  if (selector !== undefined) listOpts.labelSelector = selector;
  if (options.signal !== undefined) listOpts.signal = options.signal;
  const namespaces = watchedNamespaces(resource, options.namespace);
  const items = await listWatched<Obj>(client, resource, namespaces, listOpts);
  const sets = config.router.resourceSets();
  const cache = await planCaches(real, {
    resource,
    items,
    owns: config.owns,
    namespaces,
    signal: options.signal,
  });
  // As many objects at once as the framework has workers (its real pass runs that many).
  return inParallel(items, options.concurrency ?? config.workers, async (obj) => {
    const scope: GuardScope = { apiServer, refused: [] };
    const planned = await withinScope(scope, () =>
      planObject(obj, sets, config.router, client, server, cache, options.signal),
    );
    if (scope.refused.length > 0) {
      delete planned.error;
      planned.resources.push({
        resource: scope.refused.join(', '),
        path: obj.metadata?.deletionTimestamp === undefined ? 'update' : 'delete',
        parts: [],
        notPlannable: refusedOtherHost(scope.refused)
          ? 'a step reached for another host than the API server (refused, nothing was sent)'
          : 'a step wrote outside the planning client (refused, nothing was sent)',
      });
    }
    return planned;
  });
}

async function planObject<Obj extends KubernetesObject>(
  obj: Obj,
  sets: ReturnType<Framework<Obj>['config']['router']['resourceSets']>,
  router: Framework<Obj>['config']['router'],
  client: ObjectClient,
  server: ObjectClient,
  cache: (kind: string, apiVersion?: string) => Store | undefined,
  signal: AbortSignal | undefined,
): Promise<PlannedObject> {
  const planned: PlannedObject = { name: obj.metadata?.name ?? '', resources: [] };
  if (obj.metadata?.namespace !== undefined) planned.namespace = obj.metadata.namespace;
  try {
    const set = router.resourceSet(obj);
    planned.resourceSet = sets.indexOf(set);
    const ctx = new ReconcileContext(signal === undefined ? {} : { signal });
    setEngineContext(ctx, { client, cache });
    installFlags(ctx); // as the engine's pass does before initCtx (updateAllowed, …)
    await set.initCtx(ctx, obj);
    const path = obj.metadata?.deletionTimestamp === undefined ? 'update' : 'delete';
    for (const resource of set.resources()) {
      planned.resources.push(await planResource(resource, ctx, obj, path, server));
    }
  } catch (err) {
    planned.error = err instanceof Error ? err.message : String(err);
  }
  return planned;
}
