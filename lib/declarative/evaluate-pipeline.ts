import type { KubernetesObject } from '@kubernetes/client-node';
import { compileExpression, compileJsonPath, type CompiledExpression } from './compile-expression.js';
import { DeclarativeSpecError, describeValue, ExpressionError, pathAt } from './declarative-spec-error.js';
import { asBool, canonicalJson } from './expression-values.js';
import { equiEdges, joinDocuments, type JoinPlan } from './join-documents.js';
import { getJsonPath, isJsonPathString, setJsonPath, type JsonPath } from './json-path.js';
import type { PipelineSpec } from './operator-spec.js';

type Doc = Record<string, unknown>;
type StageFn = (docs: Doc[], now: () => Date) => Doc[];

/** A pipeline checked once against its sources' kinds, ready to run on their objects. */
export interface CompiledPipeline {
  /** The documents it outputs for these inputs (keyed by source kind). Throws {@link ExpressionError}. */
  run(inputs: Readonly<Record<string, readonly KubernetesObject[]>>, now?: () => Date): Doc[];
}

const STAGES = ['@select', '@project', '@unwind', '@demux', '@gather', '@mux'] as const;

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(a: Doc, b: Doc): Doc {
  const out: Doc = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isObject(prev) && isObject(v) ? deepMerge(prev, v) : v;
  }
  return out;
}

function identity(doc: Doc): string {
  const md = doc['metadata'];
  if (isObject(md) && typeof md['name'] === 'string') {
    return `${typeof md['namespace'] === 'string' ? md['namespace'] : ''}/${md['name']}`;
  }
  return canonicalJson(doc);
}

function stagePath(stagePathText: string, arg: unknown, op: string): JsonPath {
  if (!isJsonPathString(arg)) {
    throw new DeclarativeSpecError(
      stagePathText,
      `${op} takes a literal JSONPath such as "$.spec.items", got ${describeValue(arg)}`,
    );
  }
  const jp = compileJsonPath(arg, stagePathText);
  if (jp.root !== '$' || jp.multi || jp.segments.length === 0) {
    throw new DeclarativeSpecError(
      stagePathText,
      `${op} needs a path below "$" with no wildcard, got ${JSON.stringify(arg)}`,
    );
  }
  return jp;
}

function compileStage(stage: unknown, path: string): StageFn {
  if (!isObject(stage) || Object.keys(stage).length !== 1) {
    throw new DeclarativeSpecError(
      path,
      `a stage is an object with one of ${STAGES.join(', ')}, got ${describeValue(stage)}`,
    );
  }
  const op = Object.keys(stage)[0] ?? '';
  const arg = stage[op];
  const at = pathAt(path, op);
  switch (op) {
    case '@select': {
      const cond = compileExpression(arg, at);
      return (docs, now) =>
        docs.filter((doc) => asBool(cond({ doc, subject: undefined, now }), at, op, 'the condition'));
    }
    case '@project': {
      const proj = compileExpression(arg, at);
      return (docs, now) =>
        docs.map((doc) => {
          const out = proj({ doc, subject: undefined, now });
          if (isObject(out)) return out;
          if (Array.isArray(out) && out.every(isObject))
            return out.reduce<Doc>((acc, o) => deepMerge(acc, o), {});
          throw new ExpressionError(
            at,
            `${op} must produce an object (or a list of objects to merge), got ${describeValue(out)}`,
          );
        });
    }
    case '@unwind':
    case '@demux': {
      const jp = stagePath(at, arg, op);
      return (docs) =>
        docs.flatMap((doc) => {
          const list = getJsonPath(jp, doc);
          if (list === undefined || list === null) return [];
          if (!Array.isArray(list))
            throw new ExpressionError(at, `${op}: ${jp.source} must be a list, got ${describeValue(list)}`);
          const md = doc['metadata'];
          const name = isObject(md) ? md['name'] : undefined;
          if (typeof name !== 'string' || name === '') {
            throw new ExpressionError(
              at,
              `${op} names its outputs '<metadata.name>-<index>': the document needs metadata.name (a string)`,
            );
          }
          return (list as unknown[]).map((item, i) => {
            const copy = structuredClone(doc);
            setJsonPath(jp, copy, structuredClone(item));
            (copy['metadata'] as Doc)['name'] = `${name}-${String(i)}`;
            return copy;
          });
        });
    }
    case '@gather':
    case '@mux': {
      if (!Array.isArray(arg) || arg.length !== 2) {
        throw new DeclarativeSpecError(
          at,
          `${op} takes [keyExpression, "$.path.of.value"], got ${describeValue(arg)}`,
        );
      }
      const key = compileExpression(arg[0], pathAt(at, 0));
      const valuePath = stagePath(pathAt(at, 1), arg[1], op);
      return (docs, now) => {
        const sorted = docs
          .map((doc) => ({ doc, id: identity(doc) }))
          .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
        const groups = new Map<string, { doc: Doc; values: unknown[] }>();
        for (const { doc } of sorted) {
          const k = key({ doc, subject: undefined, now });
          if (k === undefined) continue;
          const gk = canonicalJson(k);
          const value = getJsonPath(valuePath, doc);
          const group = groups.get(gk);
          if (group === undefined) groups.set(gk, { doc, values: [value] });
          else group.values.push(value);
        }
        return [...groups.values()].map(
          ({ doc, values }) => setJsonPath(valuePath, structuredClone(doc), values) as Doc,
        );
      };
    }
    default:
      throw new DeclarativeSpecError(
        at,
        `unknown pipeline stage '${op}'; stages are ${STAGES.join(', ')} (after an optional '@join')`,
      );
  }
}

/**
 * Checks a pipeline against the kinds of its sources and compiles it. Throws a located
 * {@link DeclarativeSpecError} (`<path>['@aggregate'][1]['@select']['@eq']`) for anything that cannot run:
 * more than one source without `@join`, an unknown stage or operator, a malformed JSONPath.
 */
export function compilePipeline(
  spec: PipelineSpec | undefined,
  kinds: readonly string[],
  path: string,
): CompiledPipeline {
  if (new Set(kinds).size !== kinds.length) {
    throw new DeclarativeSpecError(
      path,
      `two sources of one kind (${kinds.join(', ')}): the joined document is keyed by kind`,
    );
  }
  let joinSpec: unknown;
  let hasJoin = false;
  let stages: unknown[] = [];
  let stagesPath = path;
  if (spec === undefined) {
    // No pipeline: the source objects as they are.
  } else if (Array.isArray(spec)) {
    stages = spec;
  } else if (isObject(spec)) {
    const keys = Object.keys(spec);
    if (keys.length === 1 && STAGES.includes(keys[0] as (typeof STAGES)[number])) {
      stages = [spec];
      stagesPath = pathAt(path, '@aggregate');
    } else {
      for (const k of keys) {
        if (k !== '@join' && k !== '@aggregate') {
          throw new DeclarativeSpecError(
            pathAt(path, k),
            `unknown pipeline key '${k}'; a pipeline has '@join' and '@aggregate'`,
          );
        }
      }
      hasJoin = Object.hasOwn(spec, '@join');
      joinSpec = spec['@join'];
      const agg = spec['@aggregate'];
      stagesPath = pathAt(path, '@aggregate');
      if (agg !== undefined && !Array.isArray(agg)) {
        throw new DeclarativeSpecError(
          stagesPath,
          `'@aggregate' must be a list of stages, got ${describeValue(agg)}`,
        );
      }
      stages = agg ?? [];
    }
  } else {
    throw new DeclarativeSpecError(
      path,
      `a pipeline is a list of stages or { '@join', '@aggregate' }, got ${describeValue(spec)}`,
    );
  }
  if (kinds.length > 1 && !hasJoin) {
    throw new DeclarativeSpecError(
      path,
      `${String(kinds.length)} sources (${kinds.join(', ')}) need a '@join' condition`,
    );
  }
  let plan: JoinPlan | undefined;
  if (hasJoin) {
    const joinPath = pathAt(path, '@join');
    const condition: CompiledExpression = compileExpression(joinSpec, joinPath);
    plan = { kinds, condition, edges: equiEdges(joinSpec, kinds), path: joinPath };
  }
  const fns = stages.map((s, j) => compileStage(s, pathAt(stagesPath, j)));
  return {
    run(inputs, now = () => new Date()) {
      let docs: Doc[] =
        plan === undefined
          ? (inputs[kinds[0] ?? ''] ?? []).map((o) => o as unknown as Doc)
          : joinDocuments(plan, inputs, now);
      for (const fn of fns) docs = fn(docs, now);
      return docs;
    },
  };
}

/**
 * Options of {@link evaluatePipeline}.
 * @category Declarative operators
 */
export interface EvaluatePipelineOptions {
  /** The clock of `@now`. Default: `() => new Date()`. */
  now?: () => Date;
}

/**
 * Runs a pipeline over the objects of its sources, keyed by kind (`{ ConfigMap: [...], Secret: [...] }`):
 * the join, then each stage. Every output must be an object with a `metadata.name`. Throws
 * {@link DeclarativeSpecError} for a malformed pipeline and {@link ExpressionError} for bad data, located
 * from `pipeline`.
 * @category Declarative operators
 */
export function evaluatePipeline(
  spec: PipelineSpec | undefined,
  inputs: Readonly<Record<string, readonly KubernetesObject[]>>,
  options: EvaluatePipelineOptions = {},
): KubernetesObject[] {
  const docs = compilePipeline(spec, Object.keys(inputs), 'pipeline').run(inputs, options.now);
  return checkOutputs(docs, 'pipeline');
}

/** Every document must be an object with a non-empty string `metadata.name`; returns them typed. */
export function checkOutputs(docs: readonly unknown[], path: string): KubernetesObject[] {
  docs.forEach((doc, n) => {
    const md = isObject(doc) ? doc['metadata'] : undefined;
    const name = isObject(md) ? md['name'] : undefined;
    if (typeof name !== 'string' || name === '') {
      throw new ExpressionError(
        path,
        `output ${String(n)} has no metadata.name (a non-empty string); @project one, e.g. {metadata: {name: '$.metadata.name'}}`,
      );
    }
    const ns = isObject(md) ? md['namespace'] : undefined;
    if (ns !== undefined && typeof ns !== 'string') {
      throw new ExpressionError(
        path,
        `output ${String(n)} (${name}): metadata.namespace must be a string, got ${describeValue(ns)}`,
      );
    }
  });
  return docs as KubernetesObject[];
}
