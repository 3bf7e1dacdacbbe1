// Runs one request sequence against two servers side by side, in a namespace of its own on each: every
// answer (status code, body, warnings, and the object as stored afterwards) is normalised and compared, and
// watches opened on both before the first request must deliver the same events in the same order.
import { canonicalise, type AllowedDifference } from './allow-list.js';
import type { Backend, OpenWatch, RawAnswer } from './backend.js';
import { collectionPath, KINDS, RUN_LABEL } from './kinds.js';
import { firstDifference, Normaliser } from './normalise.js';
import { SeededRandom } from './random.js';
import type { FuzzRequest, JsonObject, SentRequest, ServerView } from './request.js';

/** An answer as compared. */
export interface Answer {
  status: number;
  body: unknown;
  warnings: string[];
  /** The object after a write, as a GET returns it. */
  stored?: { status: number; body: unknown };
}

export interface Divergence {
  /** An answer differs, or what a watch delivered. */
  kind: 'answer' | 'watch';
  /** Index of the request whose answer differs (answers), or of the last request (watches). */
  index: number;
  /** The first differing path (`status`, `body.message`, `stored.body.spec.replicas`, `watch configmaps[2].object…`). */
  path: string;
  /** Normalised: the embedded server's answer (or events), then the reference server's. */
  embedded: unknown;
  real: unknown;
  /** What was sent to the embedded server (namespace shown as `$NS`). */
  sent: SentRequest | undefined;
  request: FuzzRequest | undefined;
}

export interface AllowedHit {
  id: string;
  index: number;
  path: string;
}

export interface RunResult {
  /** Answers compared (watch events not counted). */
  compared: number;
  /** Watch events compared. */
  events: number;
  divergence?: Divergence;
  allowed: AllowedHit[];
  /** What was sent to the embedded server, per request. */
  sent: SentRequest[];
}

export interface RunOptions {
  /** The namespace used on both servers (created here, removed afterwards). */
  namespace: string;
  /** Open watches and compare their events. Default true. */
  watches?: boolean;
  allowList: readonly AllowedDifference[];
}

const WATCHED = KINDS.map((k) => collectionPath(k));
const SENTINEL = 'zz-sentinel';
const WATCH_WAIT_MS = 15_000;

/** One server's part of a run: its placeholders and what its answers told us. */
class ServerRun implements ServerView {
  readonly normaliser: Normaliser;
  private readonly seen = new Map<string, string[]>();
  private continueToken = '';
  readonly marks: string[] = [];
  current: JsonObject | undefined;
  readonly watches: OpenWatch[] = [];

  constructor(
    readonly backend: Backend,
    readonly namespace: string,
  ) {
    this.normaliser = new Normaliser(namespace);
  }

  versions(key: string): readonly string[] {
    return this.seen.get(key) ?? [];
  }

  private substitute(text: string): string {
    let out = text.split('$NS').join(this.namespace);
    out = out.split('$CONTINUE').join(encodeURIComponent(this.continueToken));
    out = out.split('$GEN').join(this.normaliser.lastGenerated() ?? 'zz-gen-none');
    return out.replace(/\$MARK(\d+)/g, (_, n: string) => this.marks[Number(n)] ?? '1');
  }

  async send(req: FuzzRequest): Promise<{ answer: Answer; sent: SentRequest }> {
    this.current = undefined;
    if (req.read !== undefined) {
      const read = await this.backend.request('GET', this.substitute(req.read));
      if (read.status === 200 && isObject(read.body)) this.current = read.body;
    }
    const path = this.substitute(req.path);
    let body: string | undefined;
    if (req.raw !== undefined) body = req.raw;
    else if (req.body !== undefined) {
      const value: unknown =
        typeof req.body === 'function' ? (req.body as (v: ServerView) => unknown)(this) : req.body;
      body = this.substitute(JSON.stringify(value));
    }
    const contentType = req.contentType ?? (body === undefined ? undefined : 'application/json');
    const raw = await this.backend.request(req.method, path, body, contentType);
    this.learn(req, raw);
    const answer: Answer = {
      status: raw.status,
      body: this.normaliser.normalise(raw.body),
      warnings: raw.warnings.map((w) => this.normaliser.normalise(w) as string),
    };
    if (req.stored !== undefined && req.method !== 'GET') {
      const stored = await this.backend.request('GET', this.substitute(req.stored));
      answer.stored = { status: stored.status, body: this.normaliser.normalise(stored.body) };
    }
    const sent: SentRequest = { method: req.method, path: this.hide(path) };
    if (contentType !== undefined) sent.contentType = contentType;
    if (body !== undefined) sent.body = this.hide(body);
    return { answer, sent };
  }

  /** The namespace as `$NS`, so a report reads the same whichever namespace a replay used. */
  private hide(text: string): string {
    return text.split(this.namespace).join('$NS');
  }

  private learn(req: FuzzRequest, raw: RawAnswer): void {
    const body = isObject(raw.body) ? raw.body : undefined;
    const meta = isObject(body?.metadata) ? body.metadata : undefined;
    if (
      req.method === 'POST' &&
      raw.status === 201 &&
      typeof meta?.name === 'string' &&
      req.body !== undefined
    ) {
      const sentMeta = isObject(req.body) && isObject(req.body.metadata) ? req.body.metadata : undefined;
      if (sentMeta?.generateName !== undefined && sentMeta.name === undefined)
        this.normaliser.noteGenerated(meta.name);
    }
    if (req.method === 'GET' && typeof body?.kind === 'string' && body.kind.endsWith('List')) {
      this.continueToken = typeof meta?.continue === 'string' ? meta.continue : '';
      if (req.mark === true && typeof meta?.resourceVersion === 'string')
        this.marks.push(meta.resourceVersion);
    }
    const rv = meta?.resourceVersion;
    if (
      req.key === undefined ||
      typeof rv !== 'string' ||
      raw.status >= 300 ||
      req.path.includes('dryRun=All')
    )
      return;
    if (body?.kind === 'Status' || String(body?.kind).endsWith('List')) return;
    const list = raw.status === 201 ? [] : (this.seen.get(req.key) ?? []);
    if (list[list.length - 1] !== rv) list.push(rv);
    this.seen.set(req.key, list);
  }
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function createNamespace(backend: Backend, namespace: string): Promise<void> {
  const r = await backend.request(
    'POST',
    '/api/v1/namespaces',
    JSON.stringify({ metadata: { name: namespace, labels: { [RUN_LABEL]: namespace } } }),
  );
  if (r.status !== 201)
    throw new Error(
      `${backend.name}: creating namespace ${namespace} answered ${String(r.status)}: ${JSON.stringify(r.body)}`,
    );
}

/** Removes everything the run left (finalizers first), then the namespace itself. */
export async function removeNamespace(backend: Backend, namespace: string): Promise<void> {
  for (const kind of KINDS) {
    const path = collectionPath(kind, kind.apiVersions[0], namespace);
    const list = await backend.request('GET', path);
    const items =
      isObject(list.body) && Array.isArray(list.body.items) ? (list.body.items as JsonObject[]) : [];
    for (const item of items) {
      const name = isObject(item.metadata) ? String(item.metadata.name) : '';
      if (isObject(item.metadata) && Array.isArray(item.metadata.finalizers)) {
        await backend.request(
          'PATCH',
          `${path}/${name}`,
          '{"metadata":{"finalizers":null}}',
          'application/merge-patch+json',
        );
      }
    }
    await backend.request('DELETE', path);
  }
  // Without kube-controller-manager nothing finalizes a namespace: empty its finalizers, then delete it.
  const ns = await backend.request('GET', `/api/v1/namespaces/${namespace}`);
  if (isObject(ns.body) && ns.status === 200) {
    await backend.request(
      'PUT',
      `/api/v1/namespaces/${namespace}/finalize`,
      JSON.stringify({ ...ns.body, spec: { finalizers: [] } }),
    );
  }
  await backend.request('DELETE', `/api/v1/namespaces/${namespace}`);
}

async function openWatches(run: ServerRun): Promise<void> {
  for (const path of WATCHED) {
    const p = path.split('$NS').join(run.namespace);
    const list = await run.backend.request('GET', `${p}?limit=1`);
    const rv =
      isObject(list.body) && isObject(list.body.metadata) ? String(list.body.metadata.resourceVersion) : '';
    run.watches.push(await run.backend.watch(`${p}?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`));
  }
}

/** Creates one last object of each watched kind and waits until every watch has delivered it. */
async function writeSentinels(run: ServerRun): Promise<void> {
  for (const kind of KINDS) {
    const object = kind.valid(new SeededRandom(99), SENTINEL);
    const meta = { ...(object.metadata as JsonObject) };
    delete meta.finalizers;
    const body = JSON.stringify({ ...object, metadata: meta })
      .split('$NS')
      .join(run.namespace);
    const r = await run.backend.request(
      'POST',
      collectionPath(kind, kind.apiVersions[0], run.namespace),
      body,
    );
    if (r.status !== 201)
      throw new Error(
        `${run.backend.name}: the ${kind.plural} sentinel answered ${String(r.status)}: ${JSON.stringify(r.body)}`,
      );
  }
}

function sentinelIndex(watch: OpenWatch): number {
  return watch.events.findIndex((e) => {
    const o = e.object;
    return e.type !== 'BOOKMARK' && isObject(o) && isObject(o.metadata) && o.metadata.name === SENTINEL;
  });
}

async function eventsUntilSentinel(
  watch: OpenWatch,
  what: string,
): Promise<{ type: string; object: unknown }[]> {
  const deadline = Date.now() + WATCH_WAIT_MS;
  while (sentinelIndex(watch) < 0) {
    if (watch.ended || Date.now() > deadline) {
      return [
        ...watch.events.filter((e) => e.type !== 'BOOKMARK'),
        { type: 'NO-SENTINEL', object: `${what} ended or timed out before the sentinel` },
      ];
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return watch.events.slice(0, sentinelIndex(watch)).filter((e) => e.type !== 'BOOKMARK');
}

/** Runs `requests` on both servers; stops at the first divergence the allow-list does not excuse. */
export async function runSequence(
  servers: readonly [Backend, Backend],
  requests: readonly FuzzRequest[],
  options: RunOptions,
): Promise<RunResult> {
  const runs = servers.map((b) => new ServerRun(b, options.namespace)) as [ServerRun, ServerRun];
  const result: RunResult = { compared: 0, events: 0, allowed: [], sent: [] };
  await Promise.all(runs.map((run) => createNamespace(run.backend, options.namespace)));
  try {
    if (options.watches !== false) await Promise.all(runs.map((run) => openWatches(run)));
    for (const [index, req] of requests.entries()) {
      const [mine, theirs] = await Promise.all(runs.map((run) => run.send(req)));
      if (mine === undefined || theirs === undefined) throw new Error('unreachable');
      result.sent.push(mine.sent);
      result.compared++;
      const path = firstDifference(mine.answer, theirs.answer);
      if (path === undefined) continue;
      const canonical = canonicalise(options.allowList, mine.answer, theirs.answer);
      const rest = firstDifference(canonical.a, canonical.b);
      if (rest === undefined) {
        for (const id of canonical.used) result.allowed.push({ id, index, path });
        continue;
      }
      result.divergence = {
        kind: 'answer',
        index,
        path: rest,
        embedded: canonical.a,
        real: canonical.b,
        sent: mine.sent,
        request: req,
      };
      return result;
    }
    if (options.watches !== false) {
      const watchDivergence = await compareWatches(runs, requests.length - 1, options, result);
      if (watchDivergence !== undefined) result.divergence = watchDivergence;
    }
    return result;
  } finally {
    for (const run of runs) for (const w of run.watches) w.close();
    await Promise.all(
      runs.map((run) => removeNamespace(run.backend, options.namespace).catch(() => undefined)),
    );
  }
}

async function compareWatches(
  runs: [ServerRun, ServerRun],
  last: number,
  options: RunOptions,
  result: RunResult,
): Promise<Divergence | undefined> {
  await Promise.all(runs.map((run) => writeSentinels(run)));
  // Watches resumed from the marked resourceVersions replay the same history.
  const [a, b] = runs;
  for (let m = 0; m < Math.min(a.marks.length, b.marks.length); m++) {
    for (const run of runs) {
      const rv = run.marks[m] ?? '';
      for (const path of WATCHED) {
        run.watches.push(
          await run.backend.watch(`${path.split('$NS').join(run.namespace)}?watch=1&resourceVersion=${rv}`),
        );
      }
    }
  }
  for (let i = 0; i < a.watches.length; i++) {
    const wa = a.watches[i];
    const wb = b.watches[i];
    if (wa === undefined || wb === undefined) continue;
    const what = `${WATCHED[i % WATCHED.length] ?? ''}${i >= WATCHED.length ? ` from mark ${String(Math.floor(i / WATCHED.length) - 1)}` : ''}`;
    const [ea, eb] = await Promise.all([eventsUntilSentinel(wa, what), eventsUntilSentinel(wb, what)]);
    const na = ea.map((e) => ({ type: e.type, object: a.normaliser.normalise(e.object) }));
    const nb = eb.map((e) => ({ type: e.type, object: b.normaliser.normalise(e.object) }));
    result.events += na.length;
    const path = firstDifference(na, nb);
    if (path === undefined) continue;
    const canonical = canonicalise(options.allowList, na, nb);
    const rest = firstDifference(canonical.a, canonical.b);
    if (rest === undefined) {
      for (const id of canonical.used) result.allowed.push({ id, index: last, path: `watch ${what}${path}` });
      continue;
    }
    return {
      kind: 'watch',
      index: last,
      path: `watch ${what}${rest}`,
      embedded: canonical.a,
      real: canonical.b,
      sent: undefined,
      request: undefined,
    };
  }
  return undefined;
}
