/**
 * Calls one webhook (admission or conversion) as kube-apiserver's webhook client does: POST of the review
 * as JSON to the configured URL with `?timeout=<N>s`, TLS verified against the configuration's `caBundle`
 * (the system roots when it has none), the deadline enforced on the whole call. Failures carry Go's
 * error text (`Post "<url>": context deadline exceeded`), as kube-apiserver writes them into its answer.
 */
import { Agent, request } from 'node:https';
import { request as httpRequest } from 'node:http';

/** Largest webhook response read (kube-apiserver's rest client reads any size; this bounds memory). */
export const MAX_WEBHOOK_RESPONSE_BYTES = 8 * 1024 * 1024;

/** A call that did not produce a decodable review: the `reason` is what kube-apiserver says after `failed to call webhook: `. */
export class WebhookCallError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'WebhookCallError';
  }
}

/** Where and how to call a webhook. */
export interface WebhookEndpoint {
  /** `https://host:port/path` (a Service reference already resolved). */
  url: string;
  /** PEM CA bundle (decoded from the configuration's base64 `caBundle`); undefined: system roots. */
  caPem?: string;
  timeoutMs: number;
}

/** One keep-alive agent per CA bundle, so repeated calls reuse their TLS connections. */
const agents = new Map<string, Agent>();
function agentFor(caPem: string | undefined): Agent {
  const key = caPem ?? '';
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 64, ...(caPem === undefined ? {} : { ca: caPem }) });
    if (agents.size > 64) {
      const [first] = agents.entries();
      first?.[1].destroy();
      if (first !== undefined) agents.delete(first[0]);
    }
    agents.set(key, agent);
  }
  return agent;
}

/** Go's `time.Duration.String()` for whole seconds (`10s`, `1m0s`). */
function goSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

function goNetError(err: NodeJS.ErrnoException, host: string): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}: connect: connection refused`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${host.replace(/:\d+$/, '')}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.message;
  }
}

/** Posts `review` and resolves with the decoded JSON answer; rejects with {@link WebhookCallError}. */
export function callWebhook(endpoint: WebhookEndpoint, review: unknown): Promise<unknown> {
  const seconds = Math.max(1, Math.round(endpoint.timeoutMs / 1000));
  const target = new URL(endpoint.url);
  target.searchParams.set('timeout', goSeconds(seconds));
  const shown = target.toString();
  const body = Buffer.from(JSON.stringify(review));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (reason: string): void => {
      if (settled) return;
      settled = true;
      reject(new WebhookCallError(`Post "${shown}": ${reason}`));
    };
    const options = {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'Content-Length': body.length,
      },
    };
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_WEBHOOK_RESPONSE_BYTES) {
          req.destroy();
          fail(`response larger than ${MAX_WEBHOOK_RESPONSE_BYTES} bytes`);
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) {
          settled = true;
          reject(
            new WebhookCallError(
              `the server responded with the status code ${code} but did not return more information`,
            ),
          );
          return;
        }
        try {
          settled = true;
          resolve(JSON.parse(text));
        } catch (e) {
          reject(
            new WebhookCallError(
              `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`,
            ),
          );
        }
      });
      res.on('error', (err) => {
        fail(err.message);
      });
    };
    const req =
      target.protocol === 'https:'
        ? request(target, { ...options, agent: agentFor(endpoint.caPem) }, onResponse)
        : httpRequest(target, options, onResponse);
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, endpoint.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(goNetError(err, target.host));
    });
    req.end(body);
  });
}
