import type { Counter, Registry } from 'prom-client';
import type { Logger } from '../observability/logger.js';
import { promClient } from '../util/prom-client.js';

/**
 * One `Warning` response header of the API server (RFC 7234 §5.5): a deprecated API version, a deprecated
 * CRD version's `deprecationWarning`, an unknown field dropped, an admission webhook's warning.
 * @category Kubernetes client
 */
export interface ApiWarning {
  /** The warn-code: 299 ("miscellaneous persistent warning") is the one Kubernetes sends. */
  code: number;
  /** The warn-agent (`-` when the server names none). */
  agent: string;
  /** The warning's text, unquoted. */
  text: string;
}

/**
 * Called for every `299` Warning header of every response. Set one with `warningHandler` (a
 * Framework, Controller or Operator option, or an ObjectClient's) to route warnings elsewhere; `false` there
 * drops them.
 * @category Kubernetes client
 */
export type WarningHandler = (warning: ApiWarning, request: { method: string; path: string }) => void;

/**
 * Name of the counter of API warnings the default handler keeps. client-go counts none (it logs, as
 * `rest.WarningWriter` with deduplication); the name follows reconcilekit's own metrics.
 * @category Kubernetes client
 */
export const API_WARNINGS_METRIC = 'reconcilekit_api_warnings_total';

/** Distinct texts a deduplicating handler remembers; past it, it counts but logs no new text. */
export const MAX_REMEMBERED_WARNINGS = 1_000;

/**
 * The warnings in raw `Warning` header values: `<code> <agent> "<text>" ["<date>"]`, several per value
 * separated by commas. Only code 299 is kept (as client-go does); a malformed value is skipped. Header
 * bytes are read as UTF-8 (Node decodes them as latin1).
 * @category Kubernetes client
 */
export function parseWarningHeaders(values: readonly string[]): ApiWarning[] {
  const out: ApiWarning[] = [];
  for (const raw of values) {
    const value = Buffer.from(raw, 'latin1').toString('utf8');
    let i = 0;
    while (i < value.length) {
      const head = /^\s*(\d{3})\s+(\S+)\s+"/.exec(value.slice(i));
      if (head === null) break;
      i += head[0].length;
      let text = '';
      let closed = false;
      for (; i < value.length; i++) {
        const ch = value.charAt(i);
        if (ch === '\\' && i + 1 < value.length) text += value.charAt(++i);
        else if (ch === '"') {
          closed = true;
          i++;
          break;
        } else text += ch;
      }
      if (!closed) break;
      // An optional quoted date, then the comma before the next warning.
      const tail = /^\s*(?:"[^"]*")?\s*,?/.exec(value.slice(i));
      i += tail?.[0].length ?? 0;
      const code = Number(head[1]);
      if (code === 299) out.push({ code, agent: head[2] ?? '-', text });
    }
  }
  return out;
}

/**
 * What {@link loggingWarningHandler} takes.
 * @category Kubernetes client
 */
export interface LoggingWarningHandlerOptions {
  logger: Logger;
  /** Where {@link API_WARNINGS_METRIC} is counted (every warning, logged or not). Default: none. */
  registry?: Registry;
  /** Log each distinct text once (default true), as client-go's deduplicating warning writer. */
  deduplicate?: boolean;
}

/**
 * The default warning handler: each distinct text logged once as a warning (`API server warning: <text>`,
 * with the request that got it), every warning counted in {@link API_WARNINGS_METRIC}.
 * @category Kubernetes client
 */
export function loggingWarningHandler(options: LoggingWarningHandlerOptions): WarningHandler {
  const seen = new Set<string>();
  const counter = options.registry === undefined ? undefined : warningCounter(options.registry);
  const deduplicate = options.deduplicate !== false;
  return (warning, request) => {
    counter?.inc();
    if (deduplicate) {
      if (seen.has(warning.text) || seen.size >= MAX_REMEMBERED_WARNINGS) return;
      seen.add(warning.text);
    }
    options.logger.warn(`API server warning: ${warning.text}`, {
      method: request.method,
      path: request.path,
    });
  };
}

function warningCounter(registry: Registry): Counter {
  const existing = registry.getSingleMetric(API_WARNINGS_METRIC);
  if (existing !== undefined) return existing as Counter;
  const { Counter } = promClient();
  return new Counter({
    name: API_WARNINGS_METRIC,
    help: 'Warning headers (code 299) received from the API server: deprecated APIs and CRD versions, dropped unknown fields, admission warnings',
    registers: [registry],
  });
}
