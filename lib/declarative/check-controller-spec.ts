import { compilePipeline, type CompiledPipeline } from './evaluate-pipeline.js';
import { DeclarativeSpecError, describeValue, pathAt } from './declarative-spec-error.js';
import {
  MAX_CONTROLLERS,
  MIN_CONTROLLERS,
  type ControllerSpec,
  type OperatorSpec,
  type SourceSpec,
} from './operator-spec.js';
import { checkSpecShape } from './spec-shape.js';

/** A controller spec that passed every check, with its pipeline compiled. */
export interface CheckedController {
  readonly spec: ControllerSpec;
  readonly pipeline: CompiledPipeline;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalString(obj: Record<string, unknown>, key: string, path: string): void {
  if (obj[key] !== undefined && typeof obj[key] !== 'string') {
    throw new DeclarativeSpecError(pathAt(path, key), `must be a string, got ${describeValue(obj[key])}`);
  }
}

/** The keys a source or target may hold. */
const RESOURCE_KEYS = new Set([
  'apiGroup',
  'version',
  'kind',
  'namespace',
  'labelSelector',
  'predicate',
  'type',
]);

function checkResource(value: unknown, path: string): void {
  if (!isObject(value))
    throw new DeclarativeSpecError(path, `must be an object with a kind, got ${describeValue(value)}`);
  if (typeof value['kind'] !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(value['kind'])) {
    const unknown = Object.keys(value).filter((k) => !RESOURCE_KEYS.has(k));
    const hint =
      value['kind'] === undefined && unknown.length > 0
        ? ` (unknown key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}: misspelt?)`
        : '';
    throw new DeclarativeSpecError(
      pathAt(path, 'kind'),
      `must be a kind name such as ConfigMap, got ${describeValue(value['kind'])}${hint}`,
    );
  }
  optionalString(value, 'apiGroup', path);
  optionalString(value, 'version', path);
}

const LEAF_PREDICATES = ['GenerationChanged', 'ResourceVersionChanged', 'LabelChanged', 'AnnotationChanged'];

function checkPredicate(value: unknown, path: string): void {
  const keys = isObject(value) ? Object.keys(value) : [];
  const key = keys[0];
  if (!isObject(value) || keys.length !== 1 || key === undefined) {
    throw new DeclarativeSpecError(
      path,
      `a predicate is an object with one of ${[...LEAF_PREDICATES, 'And', 'Or', 'Not'].join(', ')}, got ${describeValue(value)}`,
    );
  }
  const arg = value[key];
  const at = pathAt(path, key);
  if (LEAF_PREDICATES.includes(key)) return;
  if (key === 'And' || key === 'Or') {
    if (!Array.isArray(arg))
      throw new DeclarativeSpecError(at, `must be a list of predicates, got ${describeValue(arg)}`);
    arg.forEach((p, i) => {
      checkPredicate(p, pathAt(at, i));
    });
  } else if (key === 'Not') checkPredicate(arg, at);
  else
    throw new DeclarativeSpecError(
      at,
      `unknown predicate '${key}'; known: ${[...LEAF_PREDICATES, 'And', 'Or', 'Not'].join(', ')}`,
    );
}

function checkSource(value: unknown, path: string): void {
  checkResource(value, path);
  const src = value as Record<string, unknown>;
  optionalString(src, 'namespace', path);
  const sel = src['labelSelector'];
  if (sel !== undefined) {
    const at = pathAt(path, 'labelSelector');
    if (!isObject(sel))
      throw new DeclarativeSpecError(
        at,
        `must be {matchLabels?, matchExpressions?}, got ${describeValue(sel)}`,
      );
    const ml = sel['matchLabels'];
    if (ml !== undefined && (!isObject(ml) || Object.values(ml).some((v) => typeof v !== 'string'))) {
      throw new DeclarativeSpecError(pathAt(at, 'matchLabels'), 'must map label keys to string values');
    }
    const me = sel['matchExpressions'];
    if (me !== undefined) {
      if (!Array.isArray(me))
        throw new DeclarativeSpecError(pathAt(at, 'matchExpressions'), 'must be a list');
      me.forEach((e, i) => {
        const ep = pathAt(pathAt(at, 'matchExpressions'), i);
        if (!isObject(e) || typeof e['key'] !== 'string')
          throw new DeclarativeSpecError(ep, 'needs a key (string)');
        if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e['operator'] as string)) {
          throw new DeclarativeSpecError(
            pathAt(ep, 'operator'),
            `must be In, NotIn, Exists or DoesNotExist, got ${describeValue(e['operator'])}`,
          );
        }
        if (
          e['values'] !== undefined &&
          (!Array.isArray(e['values']) || e['values'].some((v) => typeof v !== 'string'))
        ) {
          throw new DeclarativeSpecError(pathAt(ep, 'values'), 'must be a list of strings');
        }
      });
    }
  }
  if (src['predicate'] !== undefined) checkPredicate(src['predicate'], pathAt(path, 'predicate'));
}

/**
 * Checks one controller spec and compiles its pipeline; throws a {@link DeclarativeSpecError} located
 * from `path` (e.g. `controllers[2]`) for the first problem found.
 */
export function checkControllerSpec(value: unknown, path: string): CheckedController {
  checkSpecShape(value, path);
  if (!isObject(value))
    throw new DeclarativeSpecError(
      path,
      `a controller is an object {name, sources, pipeline?, target}, got ${describeValue(value)}`,
    );
  if (typeof value['name'] !== 'string' || value['name'].trim() === '') {
    throw new DeclarativeSpecError(pathAt(path, 'name'), 'a controller needs a non-empty name');
  }
  const sources = value['sources'];
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new DeclarativeSpecError(
      pathAt(path, 'sources'),
      'a controller needs at least one source ({kind, apiGroup?, version?})',
    );
  }
  sources.forEach((s, i) => {
    checkSource(s, pathAt(pathAt(path, 'sources'), i));
  });
  const target = value['target'];
  if (target === undefined)
    throw new DeclarativeSpecError(
      pathAt(path, 'target'),
      'a controller needs a target ({kind, apiGroup?, version?, type?})',
    );
  checkResource(target, pathAt(path, 'target'));
  const type = (target as Record<string, unknown>)['type'];
  if (type !== undefined && type !== 'Updater' && type !== 'Patcher') {
    throw new DeclarativeSpecError(
      pathAt(pathAt(path, 'target'), 'type'),
      `must be Updater or Patcher, got ${describeValue(type)}`,
    );
  }
  const kinds = (sources as SourceSpec[]).map((s) => s.kind);
  const pipeline = compilePipeline(
    value['pipeline'] as ControllerSpec['pipeline'],
    kinds,
    pathAt(path, 'pipeline'),
  );
  return { spec: value as unknown as ControllerSpec, pipeline };
}

/**
 * Checks the operator-level shape: `controllers` is a list of 1–255 entries. The entries themselves are
 * checked one by one ({@link checkControllerSpec}), so one bad controller does not stop the others.
 */
export function checkOperatorSpec(value: unknown, path = 'spec'): OperatorSpec {
  checkSpecShape(value, path);
  if (!isObject(value))
    throw new DeclarativeSpecError(
      path,
      `an operator spec is {controllers: [...]}, got ${describeValue(value)}`,
    );
  const list = value['controllers'];
  if (!Array.isArray(list) || list.length < MIN_CONTROLLERS || list.length > MAX_CONTROLLERS) {
    throw new DeclarativeSpecError(
      pathAt(path, 'controllers'),
      `must be a list of ${String(MIN_CONTROLLERS)}–${String(MAX_CONTROLLERS)} controllers, got ${describeValue(list)}`,
    );
  }
  return value as unknown as OperatorSpec;
}

/** Whether a resource names a view kind of the operator (no apiGroup). */
export function isViewResource(r: { apiGroup?: string }): boolean {
  return r.apiGroup === undefined;
}

/**
 * Controllers (by index) that sit on a cycle of view kinds (a controller reads view A and writes view B, …,
 * back to A — including reading its own target view). Such a chain never settles; each gets a critical error.
 */
export function viewCycles(specs: readonly (ControllerSpec | undefined)[]): Map<number, string> {
  const writers = new Map<string, number[]>();
  specs.forEach((s, i) => {
    if (s !== undefined && isViewResource(s.target)) {
      const list = writers.get(s.target.kind) ?? [];
      list.push(i);
      writers.set(s.target.kind, list);
    }
  });
  // Edge i → j when controller j reads a view kind that controller i writes.
  const next = (i: number): number[] => {
    const s = specs[i];
    if (s === undefined || !isViewResource(s.target)) return [];
    const out: number[] = [];
    specs.forEach((t, j) => {
      if (t?.sources.some((src) => isViewResource(src) && src.kind === s.target.kind) === true) out.push(j);
    });
    return out;
  };
  const result = new Map<number, string>();
  specs.forEach((s, start) => {
    if (s === undefined) return;
    // Depth-first search for a path back to `start`.
    const stack: { node: number; trail: number[] }[] = [{ node: start, trail: [start] }];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const { node, trail } = stack.pop() ?? { node: -1, trail: [] };
      for (const n of next(node)) {
        if (n === start) {
          const names = [...trail, start].map((k) => specs[k]?.name ?? String(k));
          result.set(
            start,
            `cyclic view dependency: ${names.join(' → ')} (each writes a view the next one reads); break the cycle`,
          );
          return;
        }
        if (!seen.has(n)) {
          seen.add(n);
          stack.push({ node: n, trail: [...trail, n] });
        }
      }
    }
  });
  return result;
}
