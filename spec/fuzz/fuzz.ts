// One fuzzing seed end to end: generate the sequence, run it on both servers, and on a divergence shrink it
// and write the report a reader needs to reproduce and fix it.
import { randomBytes } from 'node:crypto';
import { ALLOW_LIST, type AllowedDifference } from './allow-list.js';
import type { Backend } from './backend.js';
import { generateRequests } from './generator.js';
import { valueAt } from './normalise.js';
import { formatRequest } from './request.js';
import { runSequence, type AllowedHit, type Divergence } from './run.js';
import { shrink } from './shrink.js';

export interface SeedResult {
  seed: number;
  compared: number;
  events: number;
  allowed: AllowedHit[];
  /** The report of the divergence found (after shrinking), or undefined. */
  report?: string;
  divergence?: Divergence;
}

export interface FuzzOptions {
  /** Requests per seed. */
  requests: number;
  /** Shrink a divergence (replays on both servers). Default true. */
  shrink?: boolean;
  allowList?: readonly AllowedDifference[];
  /** Names of the two servers in reports. */
  names?: readonly [string, string];
}

/** A namespace name for one run of `seed` (unique, so replays and reruns never meet old objects). */
export function namespaceFor(seed: number): string {
  return `fz-${String(seed)}-${randomBytes(3).toString('hex')}`;
}

/** Runs `seed` on both servers. */
export async function fuzzSeed(
  servers: readonly [Backend, Backend],
  seed: number,
  options: FuzzOptions,
): Promise<SeedResult> {
  const allowList = options.allowList ?? ALLOW_LIST;
  const requests = generateRequests(seed, options.requests);
  const run = await runSequence(servers, requests, { namespace: namespaceFor(seed), allowList });
  const result: SeedResult = { seed, compared: run.compared, events: run.events, allowed: run.allowed };
  if (run.divergence === undefined) return result;
  let divergence = run.divergence;
  let minimal = requests.slice(0, divergence.index + 1);
  let sent = run.sent.slice(0, divergence.index + 1);
  let replays = 0;
  if (options.shrink !== false) {
    const watches = divergence.kind === 'watch';
    const shrunk = await shrink(requests, divergence, async (candidate) => {
      const r = await runSequence(servers, candidate, { namespace: namespaceFor(seed), allowList, watches });
      return { divergence: r.divergence, sent: r.sent };
    });
    if (shrunk.sent.length > 0) {
      divergence = shrunk.divergence;
      minimal = shrunk.requests;
      sent = shrunk.sent;
    }
    replays = shrunk.replays;
  }
  result.divergence = divergence;
  result.report = formatReport(
    seed,
    options,
    requests.length,
    run.divergence.index,
    minimal.map((r) => r.label),
    sent,
    divergence,
    replays,
  );
  return result;
}

function show(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ');
  return text.length > 3000 ? `${text.slice(0, 3000)} …` : text;
}

function formatReport(
  seed: number,
  options: FuzzOptions,
  count: number,
  index: number,
  labels: string[],
  sent: readonly { method: string; path: string; contentType?: string; body?: string }[],
  d: Divergence,
  replays: number,
): string {
  const [mine, theirs] = options.names ?? ['embedded', 'kube-apiserver'];
  const lines = [
    `divergence: seed ${String(seed)}, request ${String(index + 1)} of ${String(count)}${d.kind === 'watch' ? ' (watch events)' : ''}`,
    `first differing path: ${d.path}`,
    `  ${mine}: ${show(valueAt(d.embedded, d.path.startsWith('watch ') ? d.path.replace(/^watch [^[]*/, '') : d.path))}`,
    `  ${theirs}: ${show(valueAt(d.real, d.path.startsWith('watch ') ? d.path.replace(/^watch [^[]*/, '') : d.path))}`,
    `minimal sequence (${String(labels.length)} requests, ${String(replays)} replays to shrink; $NS is the namespace):`,
  ];
  labels.forEach((label, i) => {
    const s = sent[i];
    lines.push(`  ${String(i + 1)}. ${label}`);
    if (s !== undefined) lines.push(`     ${formatRequest(s).replace(/\n/g, '\n     ')}`);
  });
  lines.push(`${mine} answer: ${show(d.embedded)}`, `${theirs} answer: ${show(d.real)}`);
  lines.push(`rerun: make fuzz-real SEED=${String(seed)} N=${String(count)}`);
  return lines.join('\n');
}
