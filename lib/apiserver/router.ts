import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionGuard } from './connection-guard.js';
import type { ApiServerCore } from './core.js';
import {
  aggregatedDiscovery,
  aggregatedVersionWanted,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from './discovery.js';
import { handleCreate } from './handlers/create.js';
import { handleDelete, handleDeleteCollection } from './handlers/delete.js';
import { handlePatch } from './handlers/patch.js';
import { handleGet, handleList } from './handlers/read.js';
import { ANONYMOUS, handleReview, type ReviewAuthentication } from './handlers/review.js';
import { checkDryRunValues, type RequestContext } from './handlers/request-context.js';
import { handleUpdate } from './handlers/update.js';
import { handleWatch } from './handlers/watch.js';
import { readBody, sendError, sendJson, type Reply } from './http-io.js';
import type { InFlightLimit } from './in-flight-limit.js';
import { OPENAPI_V2_PROTOBUF_TYPE, openApiV2Json, openApiV2Protobuf } from './openapi.js';
import { openApiV3Document, openApiV3Root } from './openapi-v3.js';
import { decodeProtobufBody, PROTOBUF_CONTENT_TYPE } from './protobuf-body.js';
import { parseResourceRequest } from './request-info.js';
import { retryStaleWrites } from './webhooks/request-admission.js';
import { prepareConversions } from './webhooks/request-conversion.js';
import {
  ApiError,
  isApiError,
  internalError,
  methodNotAllowed,
  notAcceptable,
  pathNotFound,
  statusForCode,
  unauthorized,
  unsupportedMediaType,
} from './status.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);
const PUBLIC_PATHS = new Set(['/healthz', '/livez', '/readyz', '/version']);

/** The server's version document; minor 32 makes version-dispatching kubectl wrappers pick 1.32. */
export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-reconcilekit',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export interface RouterOptions {
  /** Whether a request may proceed (health and /version are always public); default everyone may. */
  authenticate?: (req: IncomingMessage) => boolean;
  /** host:port for /api serverAddressByClientCIDRs. */
  hostPort: () => string;
  /** Who a request is and which tokens are valid, for the review APIs; default everyone is anonymous. */
  review?: ReviewAuthentication;
  /** Told when a request begins and when its connection authenticated; default none. */
  connections?: ConnectionGuard;
  /** kube's max-in-flight limits (429 past them); default none. */
  inFlight?: InFlightLimit;
  /** Whether the request's user is in `system:masters` (never refused by the in-flight limits). */
  privileged?: (req: IncomingMessage) => boolean;
}

const NO_AUTHENTICATION: ReviewAuthentication = { identify: () => ANONYMOUS, tokenUser: () => undefined };

function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]?.trim() ?? '';
    return (
      type === 'application/json' || type === '*/*' || type === 'application/*' || type.endsWith('+json')
    );
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });
}

/** Builds the request handler: auth, non-resource endpoints, resource routing, faults, errors. */
export function createRouter(
  core: ApiServerCore,
  options: RouterOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const admitted = (verb: string): boolean =>
      options.inFlight?.admit(verb, () => options.privileged?.(req) === true, res) ?? true;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const isPublic = PUBLIC_PATHS.has(path);
    if (!isPublic) {
      if (options.authenticate !== undefined && !options.authenticate(req)) throw unauthorized();
      options.connections?.authenticated(req);
    }
    if (!METHODS.has(method)) throw methodNotAllowed();
    const accept = req.headers.accept;
    const nonResource = nonResourceReply(core, options, method, path, accept ?? '');
    if (nonResource !== undefined) {
      if (!isPublic && !admitted(isRead(method) ? 'get' : 'create')) return;
      if (nonResource === 'openapi-v2') {
        const wantsJsonOnly = accept?.includes('application/json') === true && !accept.includes('protobuf');
        if (wantsJsonOnly) {
          sendJson(res, 200, openApiV2Json());
        } else {
          const body = openApiV2Protobuf();
          res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF_TYPE, 'Content-Length': body.length });
          res.end(method === 'HEAD' ? undefined : body);
        }
        return;
      }
      if (nonResource === 'page-not-found') {
        sendPageNotFound(res);
        return;
      }
      if (typeof nonResource === 'string') {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(nonResource);
        return;
      }
      sendJson(
        res,
        nonResource.code,
        nonResource.body,
        nonResource.headers,
        nonResource.headers?.['Content-Type'],
      );
      return;
    }
    const info = parseResourceRequest(method, path, url.searchParams);
    if (!info) throw pathNotFound();
    if (!core.registry.groupVersions(info.group).includes(info.version)) {
      sendPageNotFound(res);
      return;
    }
    const resolved = core.registry.resolve(info.group, info.version, info.resource);
    if (!resolved) throw pathNotFound();
    if (!admitted(info.verb)) return;
    if (!resolved.type.namespaced && info.namespace !== undefined) throw pathNotFound();
    // A deprecated CRD version warns on every request to it, failed ones included (kube adds the warning
    // before serving: k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go).
    const deprecation = resolved.version.deprecationWarning;
    if (deprecation !== undefined) res.setHeader('Warning', warningHeader(deprecation));
    if (!acceptsJson(accept) && !(accept ?? '').includes('protobuf')) {
      throw notAcceptable('only the following media types are accepted: application/json');
    }
    const target = { verb: info.verb, resource: info.resource, namespace: info.namespace, name: info.name };
    const fired = core.faults.fire(target, (r) => r.status !== undefined || r.delayMs !== undefined);
    for (const rule of fired) if (rule.delayMs !== undefined) await sleep(rule.delayMs);
    const failing = fired.find((r) => r.status !== undefined);
    if (failing?.status !== undefined)
      throw statusForCode(failing.status, failing.message, failing.retryAfterSeconds);
    // A create-only resource (the review APIs) has its collection path only: kube answers 405 there and
    // 404 for any named path (k8s.io/apiserver/pkg/endpoints/installer.go registers POST on the collection).
    if (resolved.type.verbs !== undefined) {
      if (info.name !== undefined) throw pathNotFound();
      if (!resolved.type.verbs.includes(info.verb)) throw methodNotAllowed();
    }
    const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
    let body = hasBody ? await readBody(req, core.settings.maxBodyBytes) : Buffer.alloc(0);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if ((method === 'POST' || method === 'PUT') && body.length > 0 && contentType !== '') {
      checkBodyMediaType(contentType, resolved.type.builtin);
    }
    if (body.length > 0 && contentType === PROTOBUF_CONTENT_TYPE && method !== 'PATCH') {
      body = Buffer.from(JSON.stringify(decodeProtobufBody(body)));
    }
    const ctx: RequestContext = {
      core,
      req,
      res,
      info,
      type: resolved.type,
      version: resolved.version,
      query: url.searchParams,
      body,
      warnings: deprecation === undefined ? [] : [deprecation],
    };
    await prepareConversions(ctx);
    if (info.verb === 'watch') {
      handleWatch(ctx);
      return;
    }
    let reply: Reply;
    try {
      reply =
        ctx.type.verbs === undefined
          ? await retryStaleWrites(ctx, () => dispatch(ctx))
          : handleReview(ctx, options.review ?? NO_AUTHENTICATION);
    } catch (e) {
      // Warnings raised before the failure (unknown fields found while decoding) go out with the error.
      if (ctx.warnings.length > 0) res.setHeader('Warning', ctx.warnings.map(warningHeader));
      throw e;
    }
    // A write is acknowledged only once it is durable (group-committed log record; no-op without dataFile).
    if (info.verb !== 'get' && info.verb !== 'list') await core.durable();
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    if (ctx.warnings.length > 0) {
      res.setHeader('Warning', ctx.warnings.map(warningHeader));
    }
    sendJson(res, reply.code, reply.body, headers);
  };
  return (req, res) => {
    options.connections?.requestStarted(req, res);
    handle(req, res).catch((e: unknown) => {
      const error = isApiError(e) ? e : internalError(e instanceof Error ? e.message : String(e));
      if (!isApiError(e)) core.log('error', 'request failed', { error: String(e), url: req.url ?? '' });
      if (error.code === 413) res.setHeader('Connection', 'close');
      try {
        if (res.headersSent) res.end();
        else sendError(res, error);
      } catch {
        res.destroy();
      }
      // A rejected body is not read: make sure the socket does not wait for it.
      if (error.code === 413) req.resume();
    });
  };
}

/**
 * POST/PUT bodies must be JSON, YAML or protobuf; anything else is 415 as kube's serializer negotiation
 * answers (k8s.io/apiserver/pkg/endpoints/handlers/negotiation), custom resources included.
 */
function checkBodyMediaType(contentType: string, builtin: boolean): void {
  const accepted = ['application/json', 'application/yaml', PROTOBUF_CONTENT_TYPE];
  if (!accepted.includes(contentType)) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  }
  if (!builtin && contentType === PROTOBUF_CONTENT_TYPE) {
    throw unsupportedMediaType(
      'custom resources are stored as JSON: send application/json or application/yaml',
    );
  }
}

function dispatch(ctx: RequestContext): Reply | Promise<Reply> {
  checkDryRunValues(ctx.info.verb, ctx.query.getAll('dryRun'));
  switch (ctx.info.verb) {
    case 'get':
      return handleGet(ctx);
    case 'list':
      return handleList(ctx);
    case 'create':
      return handleCreate(ctx);
    case 'update':
      return handleUpdate(ctx);
    case 'patch':
      return handlePatch(ctx);
    case 'delete':
      return handleDelete(ctx);
    case 'deletecollection':
      return handleDeleteCollection(ctx);
    default:
      throw new ApiError(statusForCode(405).status);
  }
}

/**
 * A `299` Warning header value with the text quoted (k8s.io/apimachinery/pkg/util/net NewWarningHeader):
 * the UTF-8 bytes go out as they are (Node writes header strings as latin1, one byte per char), so a
 * non-ASCII field name or deprecation text reaches the client instead of failing the response.
 */
function warningHeader(text: string): string {
  return Buffer.from(`299 - ${JSON.stringify(text)}`, 'utf8').toString('latin1');
}

/** A reply, plain text, or the markers 'openapi-v2' (protobuf body) and 'page-not-found'. */
type NonResource = Reply | string | undefined;

/**
 * An unserved group or group/version falls through kube-apiserver's handler chain to Go's
 * http.NotFound: a plain-text `404 page not found` (k8s.io/apiserver/pkg/server/mux/pathrecorder.go).
 */
function sendPageNotFound(res: ServerResponse): void {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end('404 page not found\n');
}

function isRead(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

function nonResourceReply(
  core: ApiServerCore,
  options: RouterOptions,
  method: string,
  path: string,
  accept: string,
): NonResource {
  const isRead = method === 'GET' || method === 'HEAD';
  const health = /^\/(healthz|livez|readyz)(\/.*)?$/.exec(path);
  if (health) return isRead ? 'ok' : undefined;
  if (path === '/version') return { code: 200, body: SERVER_VERSION };
  if (path === '/openapi/v2' || path === '/swagger-2.0.0.pb-v1') return 'openapi-v2';
  if (path === '/openapi/v3') return { code: 200, body: openApiV3Root(core.registry) };
  if (path.startsWith('/openapi/v3/')) {
    const doc = openApiV3Document(path.slice('/openapi/v3/'.length), core.registry);
    return doc === undefined ? { code: 404, body: pathNotFound().status } : { code: 200, body: doc };
  }
  const parts = path.split('/').filter((p) => p !== '');
  if (!isRead) return undefined;
  if (path === '/') {
    return {
      code: 200,
      body: {
        paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/readyz', '/version'],
      },
    };
  }
  const aggregated = aggregatedVersionWanted(accept);
  if (path === '/api' || path === '/apis') {
    if (aggregated) {
      const apiVersion = `apidiscovery.k8s.io/${aggregated}`;
      return {
        code: 200,
        body: aggregatedDiscovery(core.registry, path === '/api', apiVersion),
        headers: {
          'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${aggregated};as=APIGroupDiscoveryList`,
          Vary: 'Accept',
        },
      };
    }
    return {
      code: 200,
      body: path === '/api' ? apiVersions(options.hostPort()) : apiGroupList(core.registry),
    };
  }
  if (parts.length === 2 && parts[0] === 'api') {
    const list = apiResourceList(core.registry, '', parts[1] ?? '');
    return list ? { code: 200, body: list } : 'page-not-found';
  }
  if (parts.length === 2 && parts[0] === 'apis') {
    const group = apiGroup(core.registry, parts[1] ?? '');
    return group ? { code: 200, body: group } : 'page-not-found';
  }
  if (parts.length === 3 && parts[0] === 'apis') {
    const list = apiResourceList(core.registry, parts[1] ?? '', parts[2] ?? '');
    return list ? { code: 200, body: list } : 'page-not-found';
  }
  return undefined;
}
