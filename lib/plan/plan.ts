import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { ReconcileContext } from '../context/reconcile-context.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { clientKey } from '../framework/context-keys.js';
import { Framework } from '../framework/framework.js';
import { makeClient } from '../framework/make-client.js';
import type { ObjectClient } from '../kube/object-client.js';
import { CRUDResource } from '../resource/crud-resource.js';
import { PATCH_PARTS, type Patch, type PatchPart } from '../resource/patch.js';
import { fieldDiff, type FieldChange } from './field-diff.js';
import { NotPlannableError, planningClient } from './planning-client.js';

/**
 * Options of {@link plan}.
 * @category Plan
 */
export interface PlanOptions {
  /** API server to plan against. Default: the framework's. */
  kubeConfig?: KubeConfig;
  /** Only objects in this namespace. Default: the framework's resource namespace, else all. */
  namespace?: string;
  /** Only objects matching this label selector. Default: the framework's, else all. */
  labelSelector?: string;
  /** Aborts the plan. */
  signal?: AbortSignal;
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
}

/**
 * What one resource would do for one object.
 * @category Plan
 */
export interface PlannedResource {
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
    }
    return planned;
  });
}

async function planResource(
  resource: unknown,
  ctx: ReconcileContext,
  obj: KubernetesObject,
  path: 'update' | 'delete',
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
  try {
    const current = await ops.getCurrentState(ctx, obj);
    const desired = await ops.getDesiredState(ctx, obj);
    const patch =
      path === 'update'
        ? await ops.newUpdatePatch(ctx, obj, current, desired)
        : await ops.newDeletePatch(ctx, obj, current, desired);
    return { resource: name, path, parts: partsOf(patch, current) };
  } catch (err) {
    if (err instanceof NotPlannableError)
      return { resource: name, path, parts: [], notPlannable: err.message };
    throw err;
  }
}

/**
 * What `framework` would change, object by object, without changing anything: lists the watched objects,
 * routes each to its resource set and runs each CRUD resource's getCurrentState, getDesiredState and
 * newUpdatePatch (newDeletePatch for objects being deleted) — never the apply steps. User code gets a
 * client that reads normally and refuses every write ({@link NotPlannableError} → "not plannable").
 * @category Plan
 */
export async function plan<Obj extends KubernetesObject>(
  framework: Framework<Obj>,
  options: PlanOptions = {},
): Promise<Plan> {
  if (!(framework instanceof Framework)) {
    throw new InvalidConfigError('plan(framework): give a Framework (new Framework({...})), not yet started');
  }
  const { config } = framework;
  const resource = config.resource;
  if (resource === undefined) {
    throw new InvalidConfigError(
      'plan: the framework has no config.resource, so there is no object to plan for',
    );
  }
  const real: ObjectClient | undefined =
    options.kubeConfig !== undefined ? makeClient(config.name, options.kubeConfig, true) : framework.client;
  if (real === undefined) throw new InvalidConfigError('plan: no API connection (give options.kubeConfig)');
  const client = planningClient(real);
  const listOpts: { labelSelector?: string; signal?: AbortSignal } = {};
  const selector = options.labelSelector ?? resource.labelSelector;
  if (selector !== undefined) listOpts.labelSelector = selector;
  if (options.signal !== undefined) listOpts.signal = options.signal;
  const ref = { ...resource, namespace: options.namespace ?? resource.namespace };
  const list = await client.list<Obj>(ref, listOpts);
  const sets = config.router.resourceSets();
  const objects: PlannedObject[] = [];
  for (const obj of list.items) {
    objects.push(await planObject(obj, sets, config.router, client, options.signal));
  }
  let changes = 0;
  let errors = 0;
  for (const o of objects) {
    for (const r of o.resources) changes += r.parts.length;
    if (o.error !== undefined || o.resources.some((r) => r.notPlannable !== undefined)) errors++;
  }
  return { objects, changes, errors };
}

async function planObject<Obj extends KubernetesObject>(
  obj: Obj,
  sets: ReturnType<Framework<Obj>['config']['router']['resourceSets']>,
  router: Framework<Obj>['config']['router'],
  client: ObjectClient,
  signal: AbortSignal | undefined,
): Promise<PlannedObject> {
  const planned: PlannedObject = { name: obj.metadata?.name ?? '', resources: [] };
  if (obj.metadata?.namespace !== undefined) planned.namespace = obj.metadata.namespace;
  try {
    const set = router.resourceSet(obj);
    planned.resourceSet = sets.indexOf(set);
    const ctx = new ReconcileContext(signal === undefined ? {} : { signal });
    ctx.set(clientKey, client);
    await set.initCtx(ctx, obj);
    const path = obj.metadata?.deletionTimestamp === undefined ? 'update' : 'delete';
    for (const resource of set.resources()) {
      planned.resources.push(await planResource(resource, ctx, obj, path));
    }
  } catch (err) {
    planned.error = err instanceof Error ? err.message : String(err);
  }
  return planned;
}
