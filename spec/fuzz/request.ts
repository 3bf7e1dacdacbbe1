// What the fuzzer sends: requests described once and resolved per server, because a few parts differ
// between servers by nature (the namespace a replay runs in, resourceVersions, uids, continue tokens,
// generated names) while the request means the same thing on both.

export type JsonObject = Record<string, unknown>;

/** What a request body may depend on, per server. */
export interface ServerView {
  /** The namespace this run uses on every server. */
  readonly namespace: string;
  /** The object `read` fetched just before (undefined when it was not found). */
  readonly current: JsonObject | undefined;
  /** resourceVersions this server gave the object `key` since it was last created, oldest first. */
  versions(key: string): readonly string[];
}

export type BodyFunction = (view: ServerView) => unknown;

/** One generated request. Paths and bodies may hold `$NS` (the run's namespace). */
export interface FuzzRequest {
  /** What it is, for reports: `merge-patch configmaps/a: data.k1`. */
  readonly label: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * Path and query. Besides `$NS`: `$CONTINUE` (the continue token of this server's last list), `$GEN`
   * (the name this server generated last) and `$MARK<n>` (the list resourceVersion of mark n).
   */
  readonly path: string;
  readonly contentType?: string;
  /** A JSON value, computed per server by a function, or raw text (`raw`). */
  readonly body?: unknown;
  /** The body is sent as this exact text (malformed input). */
  readonly raw?: string;
  /** GET this object path first (not compared) and hand it to `body` as `view.current`. */
  readonly read?: string;
  /** The object path whose stored state is compared after the request (writes). */
  readonly stored?: string;
  /** This request's list resourceVersion becomes a watch start point (`$MARK<n>`). */
  readonly mark?: boolean;
  /** The key (`<plural>/<name>`) whose versions this request's answer adds to. */
  readonly key?: string;
}

/** The request as sent to one server, for reports. */
export interface SentRequest {
  method: string;
  path: string;
  contentType?: string;
  body?: string;
}

/** Renders a sent request the way a reader replays it with curl or kubectl --raw. */
export function formatRequest(r: SentRequest): string {
  const head = `${r.method} ${r.path}${r.contentType === undefined ? '' : ` [${r.contentType}]`}`;
  return r.body === undefined ? head : `${head}\n    ${r.body}`;
}
