// Requests the API server answered, by verb, resource and code, from kube-apiserver's own counter
// (apiserver_request_total on /metrics): counted on the server, so every system — Node or Go — is counted the
// same way, with nothing added to its code. The difference of two scrapes around a run is what the operator
// sent (the driver only watches during a run, and watches are left out).
import type { KubeRest } from './kube-rest.js';

/** `VERB resource[/subresource] code` → requests. */
export type RequestCounts = Map<string, number>;

const LINE = /^apiserver_request_total\{([^}]*)\}\s+([0-9.e+]+)$/;
const LABEL = /(\w+)="([^"]*)"/g;

/** Scrapes /metrics; undefined when the server has none (the embedded server) or refuses. */
export async function scrapeRequests(rest: KubeRest): Promise<RequestCounts | undefined> {
  let text: unknown;
  try {
    text = await rest.request('GET', '/metrics');
  } catch {
    return undefined;
  }
  if (typeof text !== 'string') return undefined;
  const counts: RequestCounts = new Map();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels = new Map([...(m[1] ?? '').matchAll(LABEL)].map((l) => [l[1] ?? '', l[2] ?? '']));
    const sub = labels.get('subresource') ?? '';
    const key = `${labels.get('verb') ?? ''} ${labels.get('resource') ?? ''}${sub === '' ? '' : `/${sub}`} ${labels.get('code') ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
  }
  return counts;
}

/** after − before, only the keys that moved. */
export function requestDelta(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: RequestCounts = new Map();
  for (const [key, value] of after) {
    const moved = value - (before.get(key) ?? 0);
    if (moved > 0) delta.set(key, moved);
  }
  return delta;
}

/** The requests of a run on the bench's two resources, per kind of request. */
export interface RequestSummary {
  /** GETs of one object (cached clients send none), and how many of them answered 404. */
  gets: number;
  notFound: number;
  /** LISTs (initial lists and relists). */
  lists: number;
  /** Creates, updates and patches (status included). */
  writes: number;
  /** Writes answered with a 4xx/5xx (409 AlreadyExists or Conflict, mostly). */
  failedWrites: number;
  /** The raw counts on websites and configmaps, for the results file. */
  raw: Record<string, number>;
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE']);

/** Sums a delta over the Website and ConfigMap resources (WATCH left out). */
export function summariseRequests(delta: RequestCounts): RequestSummary {
  const out: RequestSummary = { gets: 0, notFound: 0, lists: 0, writes: 0, failedWrites: 0, raw: {} };
  for (const [key, n] of delta) {
    const [verb = '', resource = '', code = ''] = key.split(' ');
    if (!/^(websites|configmaps)(\/|$)/.test(resource) || verb === 'WATCH') continue;
    out.raw[key] = n;
    if (verb === 'GET') {
      out.gets += n;
      if (code === '404') out.notFound += n;
    } else if (verb === 'LIST') out.lists += n;
    else if (WRITE_VERBS.has(verb)) {
      out.writes += n;
      if (Number(code) >= 400) out.failedWrites += n;
    }
  }
  return out;
}
