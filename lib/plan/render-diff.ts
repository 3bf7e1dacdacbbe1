import { clientNode } from '../kube/client-node.js';
import type { Plan, PlannedObject, PlannedPart } from './plan.js';

/** Lines of context around each change in a hunk (as `diff -u`). */
const CONTEXT = 3;
/** Above this many lines on a side, the whole object is shown as replaced (the LCS table is n × m). */
const MAX_LINES = 4_000;

/** Server-owned metadata left out of the rendered objects, as in the field diff. */
const SERVER_OWNED = ['resourceVersion', 'managedFields', 'uid', 'creationTimestamp', 'generation'];

type Op = { kind: ' ' | '-' | '+'; line: string };

/**
 * Options of {@link renderDiff}.
 * @category Plan
 */
export interface RenderDiffOptions {
  /** ANSI colors: red removals, green additions, cyan hunk headers, bold file headers. Default false. */
  color?: boolean;
}

function yamlOf(value: unknown): string[] {
  if (value === undefined) return [];
  let shown = value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const copy = structuredClone(value) as { metadata?: Record<string, unknown> };
    if (typeof copy.metadata === 'object') {
      copy.metadata = Object.fromEntries(
        Object.entries(copy.metadata).filter(([k]) => !SERVER_OWNED.includes(k)),
      );
    }
    shown = copy;
  }
  const text = clientNode().dumpYaml(shown, { sortKeys: true, noRefs: true, lineWidth: -1 });
  return text.replace(/\n$/, '').split('\n');
}

/** The edit script from `a` to `b` (longest common subsequence of lines). */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
  }
  const n = a.length;
  const m = b.length;
  // lcs[i][j]: length of the LCS of a[i..] and b[j..], as one flat table.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * (m + 1) + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j] ?? 0, lcs[i * (m + 1) + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i] ?? '' });
      i++;
      j++;
    } else if ((lcs[(i + 1) * (m + 1) + j] ?? 0) >= (lcs[i * (m + 1) + j + 1] ?? 0)) {
      ops.push({ kind: '-', line: a[i++] ?? '' });
    } else {
      ops.push({ kind: '+', line: b[j++] ?? '' });
    }
  }
  while (i < n) ops.push({ kind: '-', line: a[i++] ?? '' });
  while (j < m) ops.push({ kind: '+', line: b[j++] ?? '' });
  return ops;
}

/**
 * The hunks of a unified diff from `a` to `b` (`@@ -l,s +l,s @@` headers, {@link CONTEXT} lines of
 * context), without the file headers. Empty when the two are equal.
 */
export function unifiedHunks(a: readonly string[], b: readonly string[]): string[] {
  const ops = editScript(a, b);
  const changed = ops.map((op, k) => (op.kind === ' ' ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return [];
  // Group changes whose context overlaps into one hunk.
  const groups: [number, number][] = [];
  for (const k of changed) {
    const last = groups.at(-1);
    if (last !== undefined && k - last[1] <= 2 * CONTEXT) last[1] = k;
    else groups.push([k, k]);
  }
  // Line numbers before each op, on each side.
  const aLine: number[] = [];
  const bLine: number[] = [];
  let x = 1;
  let y = 1;
  for (const op of ops) {
    aLine.push(x);
    bLine.push(y);
    if (op.kind !== '+') x++;
    if (op.kind !== '-') y++;
  }
  const out: string[] = [];
  for (const [first, last] of groups) {
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length - 1, last + CONTEXT);
    const slice = ops.slice(from, to + 1);
    const aCount = slice.filter((op) => op.kind !== '+').length;
    const bCount = slice.filter((op) => op.kind !== '-').length;
    const aStart = aCount === 0 ? (aLine[from] ?? 1) - 1 : (aLine[from] ?? 1);
    const bStart = bCount === 0 ? (bLine[from] ?? 1) - 1 : (bLine[from] ?? 1);
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const op of slice) out.push(`${op.kind}${op.line}`);
  }
  return out;
}

const PAINT = {
  bold: (s: string) => `\u001b[1m${s}\u001b[0m`,
  red: (s: string) => `\u001b[31m${s}\u001b[0m`,
  green: (s: string) => `\u001b[32m${s}\u001b[0m`,
  cyan: (s: string) => `\u001b[36m${s}\u001b[0m`,
};

function objectTitle(o: PlannedObject): string {
  const name = o.namespace === undefined ? o.name : `${o.namespace}/${o.name}`;
  const by = [
    o.kind,
    o.controller === undefined ? undefined : `controller ${o.controller}`,
    o.resourceSet === undefined ? undefined : `resource set ${o.resourceSet}`,
  ].filter((v) => v !== undefined && v !== '');
  return by.length === 0 ? name : `${name} (${by.join(', ')})`;
}

/** The before and after a part shows: whole objects where known, else the change value. */
function sides(part: PlannedPart): { before: unknown; after: unknown } {
  if (part.part === 'create') return { before: undefined, after: part.after ?? part.change };
  if (part.part === 'delete') return { before: part.before ?? part.change, after: part.after };
  return { before: part.before, after: part.after ?? part.change };
}

/**
 * A unified diff per planned object: for every changed child, its YAML before (`---`, `/dev/null` when it
 * would be created) and after (`+++`, `/dev/null` when it would be deleted), server-owned metadata left
 * out; errors and not-plannable notes as `#` lines; a summary line at the end.
 * @category Plan
 */
export function renderDiff(plan: Plan, options: RenderDiffOptions = {}): string {
  const color = options.color === true;
  const paint = (how: keyof typeof PAINT, s: string): string => (color ? PAINT[how](s) : s);
  const out: string[] = [];
  for (const o of plan.objects) {
    const notes: string[] = [];
    if (o.error !== undefined) notes.push(`# error: ${o.error}`);
    if (o.skipped !== undefined) notes.push(`# skipped: ${o.skipped}`);
    for (const r of o.resources) {
      if (r.notPlannable !== undefined) notes.push(`# not plannable: ${r.resource}: ${r.notPlannable}`);
    }
    const files: string[] = [];
    for (const r of o.resources) {
      for (const part of r.parts) {
        const { before, after } = sides(part);
        const hunks = unifiedHunks(yamlOf(before), yamlOf(after));
        if (hunks.length === 0) continue;
        const from =
          part.part === 'create'
            ? '/dev/null'
            : `${r.resource} (current${before === undefined ? ': not known, shown empty' : ''})`;
        const to =
          part.part === 'delete' && after === undefined
            ? '/dev/null'
            : `${r.resource} (planned ${part.part})`;
        files.push(paint('bold', `--- ${from}`), paint('bold', `+++ ${to}`));
        for (const line of hunks) {
          if (line.startsWith('@@')) files.push(paint('cyan', line));
          else if (line.startsWith('-')) files.push(paint('red', line));
          else if (line.startsWith('+')) files.push(paint('green', line));
          else files.push(line);
        }
      }
    }
    if (files.length === 0 && notes.length === 0) continue;
    out.push(paint('bold', `# ${objectTitle(o)}`), ...notes, ...files, '');
  }
  out.push(
    `Plan: ${plan.changes} change(s) over ${plan.objects.length} object(s), ${plan.errors} with errors.`,
  );
  return `${out.join('\n')}\n`;
}
