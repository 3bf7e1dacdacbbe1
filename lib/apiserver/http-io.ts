import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject, type JsonObject } from './json.js';
import { ApiError, badRequest, requestEntityTooLarge } from './status.js';

/** Largest request body accepted (kube-apiserver's limit is 3 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * Deepest nesting of arrays and objects accepted in a request body. The server walks objects
 * recursively (validation, pruning, merge patches): a body nested thousands of levels deep would
 * overflow the stack and answer 500. Real Kubernetes objects stay far below this.
 */
export const DEFAULT_MAX_JSON_DEPTH = 1000;

/** Whether a parsed JSON value nests deeper than `limit` (iterative: no stack of its own). */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function checkDepth(value: unknown, what: string): void {
  if (jsonDepthExceeds(value, DEFAULT_MAX_JSON_DEPTH)) {
    throw badRequest(`${what} nests arrays and objects deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`);
  }
}

/** What a handler answers with. */
export interface Reply {
  code: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Reads a request body, rejecting bodies over `limit` bytes with 413. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(requestEntityTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(badRequest(`error reading the request body: ${e.message}`));
      failed = true;
    });
  });
}

/** Parses a JSON request body that must be an object. */
export function parseJsonObject(body: Buffer, what = 'the request body'): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw badRequest(`${what} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isJsonObject(value)) throw badRequest(`${what} must be a JSON object`);
  checkDepth(value, what);
  return value;
}

/** Parses any JSON value. */
export function parseJson(body: Buffer, what = 'the request body'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw badRequest(`${what} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  checkDepth(value, what);
  return value;
}

/** Writes a JSON reply. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), ...headers });
  // A Buffer body makes Node write the header block apart, as latin1: a Warning header's UTF-8 bytes go
  // out as they are (with a string body Node joins the two and UTF-8-encodes the headers a second time).
  res.end(res.req.method === 'HEAD' ? undefined : Buffer.from(text));
}

/** Writes an ApiError as its Status. */
export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.code, error.status, error.headers);
}
