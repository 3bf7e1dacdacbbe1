import { defineContextKey, type ContextKey } from './context-key.js';

/**
 * The live view's detail of one pass (`debugPage`): each resource's step durations and the patch parts it
 * applied. Set in the pass's context only while the live view is on; the CRUD flow fills it. Holds names
 * and counts only, never object contents.
 */

/** Resources traced per pass (the rest are counted in {@link PassTrace.dropped}). */
export const TRACE_MAX_RESOURCES = 50;
/** Names kept per applied patch part. */
export const TRACE_MAX_NAMES = 5;

/**
 * One patch part a CRUD resource applied: `count` when the change is a list, map or set (1 for a single
 * object), `names` for the first {@link TRACE_MAX_NAMES} items that carry `metadata.name` or `name`.
 * @category Observability: logs, metrics, Events, health
 */
export interface AppliedPart {
  part: 'create' | 'delete' | 'update';
  count?: number;
  names?: string[];
}

/**
 * One resource's part of a pass: milliseconds per step run, keyed by the `CRUDResourceOps` method
 * (`getCurrentState` … `applyUpdateChange`) or, for a resource that is not a plain `CRUDResource`,
 * `ensureCreated`/`ensureDeleted`.
 * @category Observability: logs, metrics, Events, health
 */
export interface ResourceTrace {
  resource: string;
  steps: Record<string, number>;
  /** The step that threw, if one did. */
  failedStep?: string;
  /** Patch parts applied, in apply order. */
  applied?: AppliedPart[];
}

/** What a pass collects for the live view. */
export interface PassTrace {
  resources: ResourceTrace[];
  /** Resources past {@link TRACE_MAX_RESOURCES}, not traced. */
  dropped: number;
}

/** Where the engine puts the pass's {@link PassTrace} (only while the live view is on). */
export const passTraceKey: ContextKey<PassTrace> = defineContextKey<PassTrace>('reconcilekit.passTrace');

/** A new entry for `resource` in `trace`, or undefined once the trace is full. */
export function traceResource(trace: PassTrace, resource: string): ResourceTrace | undefined {
  if (trace.resources.length >= TRACE_MAX_RESOURCES) {
    trace.dropped += 1;
    return undefined;
  }
  const entry: ResourceTrace = { resource, steps: {} };
  trace.resources.push(entry);
  return entry;
}

/** Records `ms` for `step` (rounded to 0.01 ms). */
export function traceStep(entry: ResourceTrace, step: string, ms: number): void {
  entry.steps[step] = Math.round(ms * 100) / 100;
}

/** Records an applied patch part: counts and names only. */
export function traceApplied(entry: ResourceTrace, part: AppliedPart['part'], change: unknown): void {
  (entry.applied ??= []).push(describeChange(part, change));
}

/** A part without count or names: shared, so tracing a scalar change allocates nothing. */
const BARE: Readonly<Record<AppliedPart['part'], AppliedPart>> = {
  create: Object.freeze({ part: 'create' }),
  delete: Object.freeze({ part: 'delete' }),
  update: Object.freeze({ part: 'update' }),
};

/** Count and names of a change, never its contents. */
export function describeChange(part: AppliedPart['part'], change: unknown): AppliedPart {
  if (typeof change !== 'object' || change === null) return BARE[part];
  const out: AppliedPart = { part };
  let items: Iterable<unknown> | undefined;
  if (Array.isArray(change)) {
    out.count = change.length;
    items = change;
  } else if (change instanceof Map) {
    out.count = change.size;
    items = change.values();
  } else if (change instanceof Set) {
    out.count = change.size;
    items = change;
  } else if (nameOf(change) !== undefined) {
    out.count = 1;
    items = [change];
  }
  if (items === undefined) return BARE[part];
  const names: string[] = [];
  for (const item of items) {
    if (names.length >= TRACE_MAX_NAMES) break;
    const name = nameOf(item);
    if (name !== undefined) names.push(name);
  }
  if (names.length > 0) out.names = names;
  return out;
}

/** `namespace/name` from `metadata`, or a string `name` field; at most 253 characters. */
function nameOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const meta = (value as { metadata?: unknown }).metadata;
  let name: unknown;
  let namespace: unknown;
  if (typeof meta === 'object' && meta !== null) {
    name = (meta as { name?: unknown }).name;
    namespace = (meta as { namespace?: unknown }).namespace;
  } else name = (value as { name?: unknown }).name;
  if (typeof name !== 'string' || name === '' || name.length > 253) return undefined;
  return typeof namespace === 'string' && namespace !== '' ? `${namespace}/${name}` : name;
}
