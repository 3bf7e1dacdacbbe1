import type { KubernetesObject } from '@kubernetes/client-node';
import type { CompiledExpression, EvaluationScope } from './compile-expression.js';
import { asBool } from './expression-values.js';
import { canonicalJson } from './expression-values.js';
import { getJsonPath, isJsonPathString, parseJsonPath, type JsonPath } from './json-path.js';
import { ExpressionError } from './declarative-spec-error.js';
import { MAX_JOIN_DOCUMENTS, type Expression } from './operator-spec.js';

/** `$.<kindA>.x == $.<kindB>.y`, found in a join condition: lets the join look up instead of loop. */
interface EquiEdge {
  readonly a: string;
  readonly aPath: JsonPath;
  readonly b: string;
  readonly bPath: JsonPath;
}

/** A join condition checked once: the kinds joined, the evaluator, and the equalities it can index by. */
export interface JoinPlan {
  readonly kinds: readonly string[];
  readonly condition: CompiledExpression;
  readonly edges: readonly EquiEdge[];
  readonly path: string;
}

function kindPath(expr: unknown, kinds: ReadonlySet<string>): { kind: string; rest: JsonPath } | undefined {
  if (!isJsonPathString(expr)) return undefined;
  let jp: JsonPath;
  try {
    jp = parseJsonPath(expr);
  } catch {
    return undefined;
  }
  const first = jp.segments[0];
  if (jp.root !== '$' || jp.multi || first === undefined || !('key' in first) || !kinds.has(first.key))
    return undefined;
  return { kind: first.key, rest: { ...jp, segments: jp.segments.slice(1) } };
}

/**
 * The equality conjuncts of a join condition (`@eq` of two paths into different kinds, at the top or inside
 * a top-level `@and`). The condition is still evaluated on every joined document: the edges only narrow
 * which combinations are tried, so a condition of any shape stays correct (only slower: a nested loop).
 */
export function equiEdges(expr: Expression, kinds: readonly string[]): EquiEdge[] {
  const set = new Set(kinds);
  const conjuncts: unknown[] = [];
  const visit = (e: unknown): void => {
    if (typeof e === 'object' && e !== null && !Array.isArray(e) && Object.keys(e).length === 1) {
      const and = (e as Record<string, unknown>)['@and'];
      if (Array.isArray(and)) {
        and.forEach(visit);
        return;
      }
    }
    conjuncts.push(e);
  };
  visit(expr);
  const edges: EquiEdge[] = [];
  for (const c of conjuncts) {
    const eq = typeof c === 'object' && c !== null ? (c as Record<string, unknown>)['@eq'] : undefined;
    if (!Array.isArray(eq) || eq.length !== 2) continue;
    const l = kindPath(eq[0], set);
    const r = kindPath(eq[1], set);
    if (l !== undefined && r !== undefined && l.kind !== r.kind) {
      edges.push({ a: l.kind, aPath: l.rest, b: r.kind, bPath: r.rest });
    }
  }
  return edges;
}

function indexKey(value: unknown): string {
  return value === undefined ? 'u' : canonicalJson(value);
}

/**
 * Inner join of the sources: every combination `{ <Kind>: object, … }` for which the condition is true.
 * Kinds linked by an equality are joined through a hash index (linear in the input sizes); the others by a
 * nested loop. Output order follows the input order of the first kind, then of the next. More than
 * MAX_JOIN_DOCUMENTS combinations at any step is an {@link ExpressionError} naming the join and the sizes,
 * thrown before they are built.
 */
export function joinDocuments(
  plan: JoinPlan,
  inputs: Readonly<Record<string, readonly KubernetesObject[]>>,
  now: () => Date,
): Record<string, KubernetesObject>[] {
  const [first, ...rest] = plan.kinds;
  if (first === undefined) return [];
  let partial: Record<string, KubernetesObject>[] = (inputs[first] ?? []).map((o) => ({ [first]: o }));
  const joined = new Set([first]);
  const pending = [...rest];
  while (pending.length > 0 && partial.length > 0) {
    // Prefer a kind with an equality to what is joined already.
    let pick = pending.findIndex((k) =>
      plan.edges.some((e) => (e.a === k && joined.has(e.b)) || (e.b === k && joined.has(e.a))),
    );
    if (pick < 0) pick = 0;
    const kind = pending.splice(pick, 1)[0] ?? '';
    const objects = inputs[kind] ?? [];
    const edge = plan.edges.find(
      (e) => (e.a === kind && joined.has(e.b)) || (e.b === kind && joined.has(e.a)),
    );
    const next: Record<string, KubernetesObject>[] = [];
    const add = (doc: Record<string, KubernetesObject>): void => {
      if (next.length >= MAX_JOIN_DOCUMENTS) tooLarge(plan, inputs, [...joined, kind]);
      next.push(doc);
    };
    if (edge === undefined) {
      if (partial.length * objects.length > MAX_JOIN_DOCUMENTS) tooLarge(plan, inputs, [...joined, kind]);
      for (const p of partial) for (const o of objects) next.push({ ...p, [kind]: o });
    } else {
      const [ownPath, otherKind, otherPath] =
        edge.a === kind ? [edge.aPath, edge.b, edge.bPath] : [edge.bPath, edge.a, edge.aPath];
      const index = new Map<string, KubernetesObject[]>();
      for (const o of objects) {
        const k = indexKey(getJsonPath(ownPath, o));
        const bucket = index.get(k);
        if (bucket === undefined) index.set(k, [o]);
        else bucket.push(o);
      }
      for (const p of partial) {
        const matches = index.get(indexKey(getJsonPath(otherPath, p[otherKind])));
        if (matches !== undefined) for (const o of matches) add({ ...p, [kind]: o });
      }
    }
    partial = next;
    joined.add(kind);
  }
  if (pending.length > 0) return [];
  return partial.filter((doc) => {
    const scope: EvaluationScope = { doc, subject: undefined, now };
    return asBool(plan.condition(scope), plan.path, '@join', 'the join condition');
  });
}

function tooLarge(
  plan: JoinPlan,
  inputs: Readonly<Record<string, readonly KubernetesObject[]>>,
  kinds: readonly string[],
): never {
  const sizes = plan.kinds.map((k) => `${k} ${String(inputs[k]?.length ?? 0)}`).join(', ');
  throw new ExpressionError(
    plan.path,
    `the join of ${kinds.join(', ')} would produce more than MAX_JOIN_DOCUMENTS (${String(MAX_JOIN_DOCUMENTS)}) documents (sources: ${sizes}); ` +
      'link the kinds by an equality ({"@eq": ["$.A.x", "$.B.y"]}) in the condition so the join can look up instead of pairing all, or narrow the sources with a selector',
  );
}
