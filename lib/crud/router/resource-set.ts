import { isList } from '../../util/is-list.js';
import type { ReconcileContext } from '../../context/reconcile-context.js';
import { InvalidConfigError } from '../../errors/invalid-config-error.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger-silent.js';
import type { KubeObject } from '../resource/kube-object.js';
import type { Resource } from '../resource/resource.js';

/** Internal: runs initCtx without wrapping a plain result in a promise; not exported from the package. */
export const initCtxStep: unique symbol = Symbol('initCtxStep');

/**
 * Options of {@link ResourceSet}.
 * @category CRUD resources
 */
export interface ResourceSetOptions<Obj = KubeObject> {
  /** The resources, run in this order. Required, non-empty. */
  resources: readonly Resource<Obj>[];
  /** Whether this set reconciles `obj` (typically a version check). Default: every object. */
  handles?: (obj: Obj) => boolean;
  /**
   * Prepares the context before the resources run (set `updateAllowed`, stash per-object clients with
   * `ctx.set`). An error aborts the reconciliation. Default: nothing.
   */
  initCtx?: (ctx: ReconcileContext, obj: Obj) => void | Promise<void>;
  /** Logger for the set's own lines. Default: silent. */
  logger?: Logger;
}

/**
 * A versioned bundle of reconciliation logic: a predicate saying which objects it handles, a hook that
 * prepares each reconciliation's context, and an ordered, non-empty list of resources. An operator gives
 * one set per version it supports to a router; exactly one set must handle each object it owns.
 * @category CRUD resources
 */
export class ResourceSet<Obj = KubeObject> {
  private readonly list: readonly Resource<Obj>[];
  private readonly handlesFn: (obj: Obj) => boolean;
  private readonly initCtxFn: ((ctx: ReconcileContext, obj: Obj) => void | Promise<void>) | undefined;
  /** The logger given in the options (silent by default). */
  readonly logger: Logger;

  constructor(options: ResourceSetOptions<Obj>) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError('config must be an object with resources');
    }
    const { resources, handles, initCtx, logger } = options;
    if (!isList(resources) || resources.length === 0) {
      throw new InvalidConfigError(
        'config.resources must not be empty: give the resource set at least one resource',
      );
    }
    resources.forEach((resource: unknown, index) => {
      validateResource(resource, `config.resources[${index}]`);
    });
    if (handles !== undefined && typeof handles !== 'function') {
      throw new InvalidConfigError(
        'config.handles must be a function (obj) => boolean, or left out to handle everything',
      );
    }
    if (initCtx !== undefined && typeof initCtx !== 'function') {
      throw new InvalidConfigError('config.initCtx must be a function (ctx, obj) => void, or left out');
    }
    this.list = Object.freeze([...resources]);
    this.handlesFn = handles ?? (() => true);
    this.initCtxFn = initCtx;
    this.logger = logger ?? silentLogger();
  }

  /** Whether this set reconciles `obj`. */
  handles(obj: Obj): boolean {
    return this.handlesFn(obj);
  }

  /** The resources, in run order (a frozen copy of the configured list). */
  resources(): readonly Resource<Obj>[] {
    return this.list;
  }

  /** Runs the user's initCtx hook, if any; its error is thrown unchanged and aborts the reconciliation. */
  async initCtx(ctx: ReconcileContext, obj: Obj): Promise<void> {
    if (this.initCtxFn !== undefined) await this.initCtxFn(ctx, obj);
  }

  /** The hook's own result, a promise only when the hook returned one (the engine's no-I/O fast path). */
  [initCtxStep](ctx: ReconcileContext, obj: Obj): void | Promise<void> {
    return this.initCtxFn?.(ctx, obj);
  }
}

function validateResource(resource: unknown, where: string): void {
  if (typeof resource !== 'object' || resource === null) {
    throw new InvalidConfigError(`${where} must be a Resource (name, ensureCreated, ensureDeleted)`);
  }
  const { name, ensureCreated, ensureDeleted } = resource as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidConfigError(`${where}.name must be a non-empty string`);
  }
  if (typeof ensureCreated !== 'function' || typeof ensureDeleted !== 'function') {
    throw new InvalidConfigError(`${where} ("${name}") must have ensureCreated and ensureDeleted functions`);
  }
}
