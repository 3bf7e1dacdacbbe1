import { isList } from '../../util/is-list.js';
import { ExecutionFailedError } from '../../errors/execution-failed-error.js';
import { InvalidConfigError } from '../../errors/invalid-config-error.js';
import { NoResourceSetError } from '../../errors/no-resource-set-error.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger-silent.js';
import type { KubeObject } from '../resource/kube-object.js';
import { ResourceSet } from './resource-set.js';

/**
 * Options of {@link ResourceRouter}.
 * @category CRUD resources
 */
export interface ResourceRouterOptions<Obj = KubeObject> {
  /** Candidate sets, asked in this order. Required, non-empty. */
  resourceSets: readonly ResourceSet<Obj>[];
  /** Logger for routing decisions (debug on no match, error on several). Default: silent. */
  logger?: Logger;
}

/**
 * A short, log-friendly description of an object (`kind namespace/name`).
 * @category CRUD resources
 */
export function describeObject(obj: unknown): string {
  if (typeof obj !== 'object' || obj === null) return typeof obj;
  const { kind, metadata } = obj as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  const name = typeof metadata?.name === 'string' ? metadata.name : '<unnamed>';
  const key =
    typeof metadata?.namespace === 'string' && metadata.namespace !== ''
      ? `${metadata.namespace}/${name}`
      : name;
  return typeof kind === 'string' ? `${kind} ${key}` : key;
}

/**
 * Picks the single {@link ResourceSet} that handles an object. No match throws `NoResourceSetError`,
 * which the engine treats as "not mine" (another version or controller owns the object); more than one
 * match throws `ExecutionFailedError`, because running two versions' logic on one object would race.
 * @category CRUD resources
 */
export class ResourceRouter<Obj = KubeObject> {
  private readonly sets: readonly ResourceSet<Obj>[];
  private readonly logger: Logger;

  constructor(options: ResourceRouterOptions<Obj>) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError('config must be an object with resourceSets');
    }
    const { resourceSets, logger } = options;
    if (!isList(resourceSets) || resourceSets.length === 0) {
      throw new InvalidConfigError(
        'config.resourceSets must not be empty: give the router at least one ResourceSet',
      );
    }
    resourceSets.forEach((set: unknown, index) => {
      if (!isResourceSetLike(set)) {
        throw new InvalidConfigError(
          `config.resourceSets[${index}] must be a ResourceSet (handles, resources, initCtx); build it with new ResourceSet(...)`,
        );
      }
    });
    this.sets = Object.freeze([...resourceSets]);
    this.logger = logger ?? silentLogger();
  }

  /** The configured sets, in order. */
  resourceSets(): readonly ResourceSet<Obj>[] {
    return this.sets;
  }

  /** The one set handling `obj`; throws `NoResourceSetError` (none) or `ExecutionFailedError` (several). */
  resourceSet(obj: Obj): ResourceSet<Obj> {
    // The common case (one set) without allocating a list of matches.
    const only = this.sets.length === 1 ? this.sets[0] : undefined;
    if (only?.handles(obj) === true) return only;
    const matches = this.sets.filter((set) => set.handles(obj));
    const [first] = matches;
    if (first === undefined) {
      this.logger.debug('no resource set for reconciled object', { object: describeObject(obj) });
      throw new NoResourceSetError(`no resource set handles ${describeObject(obj)}`);
    }
    if (matches.length > 1) {
      const message = `${matches.length} resource sets handle ${describeObject(obj)}; exactly one must: make their handles() predicates exclusive`;
      this.logger.error('multiple handling resource sets found', {
        object: describeObject(obj),
        count: matches.length,
      });
      throw new ExecutionFailedError(message);
    }
    return first;
  }
}

function isResourceSetLike(value: unknown): boolean {
  if (value instanceof ResourceSet) return true;
  if (typeof value !== 'object' || value === null) return false;
  const { handles, resources, initCtx } = value as Record<string, unknown>;
  return typeof handles === 'function' && typeof resources === 'function' && typeof initCtx === 'function';
}
