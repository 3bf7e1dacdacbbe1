import type { Reply } from '../http-io.js';
import { goJsonSyntaxError } from '../go-json.js';
import { isJsonObject, metadataOf, stringAt, type JsonObject } from '../json.js';
import { objectKey } from '../store.js';
import { apiVersionOf, typeKey } from '../resource-type.js';
import { ApiError, badRequest, expired, failureStatus, invalid, pathNotFound } from '../status.js';
import { namespaceOf, selectorFilter } from './filter.js';
import {
  listItem,
  partialForm,
  partialObject,
  presentObject,
  tableOf,
  wantsTable,
  wrongPartialForm,
} from './presentation.js';
import { checkListOptions } from './list-options.js';
import type { RequestContext } from './request-context.js';
import { scaleOf } from './scale.js';
import { currentObjectOrCheck } from './update.js';

/** GET of one object (or its status/scale subresource). */
export function handleGet(ctx: RequestContext): Reply {
  const sub = ctx.info.subresource;
  const form = sub === 'scale' || wantsTable(ctx) ? undefined : partialForm(ctx);
  const current = currentObjectOrCheck(ctx);
  if (sub === 'scale') return { code: 200, body: scaleOf(ctx, current) };
  if (form !== undefined) {
    if (form.kind !== 'PartialObjectMetadata') throw wrongPartialForm(ctx, form, false);
    return { code: 200, body: partialObject(form, presentObject(ctx, current)) };
  }
  if (wantsTable(ctx)) {
    return {
      code: 200,
      body: tableOf(ctx, [current], { resourceVersion: metadataOf(current).resourceVersion }),
    };
  }
  return { code: 200, body: presentObject(ctx, current) };
}

/** A continue token as kube-apiserver encodes it (k8s.io/apiserver/pkg/storage/continue.go). */
interface ContinueToken {
  /** The list's resourceVersion; -1 continues from current state (the token a 410 answer offers). */
  rv: number;
  /** The key the next page starts at (inclusive), under the listed prefix: `/name\0`, `/ns/name\0`. */
  start: string;
  /** The start key as the client sent it (echoed in the 410's token, as kube does). */
  given?: string;
}

const TOKEN_VERSION = 'meta.k8s.io/v1';

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: token.rv, start: token.start })).toString(
    'base64url',
  );
}

const RAW_URL_BASE64 = /^[A-Za-z0-9_-]*$/;

function invalidToken(why: string): ApiError {
  return badRequest(`invalid continue token: continue key is not valid${why}`);
}

/** Go's base64.RawURLEncoding.DecodeString: the error names the first illegal byte. */
function decodeRawUrlBase64(text: string): Buffer {
  const clean = text.replace(/[\r\n]/g, '');
  if (!RAW_URL_BASE64.test(clean)) {
    const bytes = Buffer.from(clean, 'utf8');
    const bad = bytes.findIndex((b) => !RAW_URL_BASE64.test(String.fromCharCode(b)));
    throw invalidToken(`: illegal base64 data at input byte ${bad}`);
  }
  if (clean.length % 4 === 1) throw invalidToken(`: illegal base64 data at input byte ${clean.length - 1}`);
  return Buffer.from(clean, 'base64url');
}

/** Go's json.Unmarshal type error for a continueToken field. */
function fieldTypeError(value: unknown, field: string, goType: string): ApiError {
  const jsonType = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  const name = jsonType === 'boolean' ? 'bool' : jsonType;
  return invalidToken(
    `: json: cannot unmarshal ${name} into Go struct field continueToken.${field} of type ${goType}`,
  );
}

/** DecodeContinue with kube's errors (400 "invalid continue token: …"). */
function decodeContinue(text: string): ContinueToken {
  const data = decodeRawUrlBase64(text);
  const syntax = goJsonSyntaxError(data);
  if (syntax !== undefined) throw invalidToken(`: ${syntax}`);
  const parsed: unknown = JSON.parse(data.toString('utf8'));
  if (!isJsonObject(parsed)) throw fieldTypeError(parsed, '', 'storage.continueToken');
  const { v, rv, start } = parsed;
  if (v !== undefined && v !== null && typeof v !== 'string') throw fieldTypeError(v, 'v', 'string');
  if (rv !== undefined && rv !== null && (typeof rv !== 'number' || !Number.isInteger(rv)))
    throw fieldTypeError(rv, 'rv', 'int64');
  if (start !== undefined && start !== null && typeof start !== 'string')
    throw fieldTypeError(start, 'start', 'string');
  if (v !== TOKEN_VERSION)
    throw invalidToken(`: server does not recognize this encoded version ${typeof v === 'string' ? v : ''}`);
  if (typeof rv !== 'number' || rv === 0)
    throw invalidToken(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '')
    throw invalidToken(': encoded start key empty (version meta.k8s.io/v1)');
  // kube refuses a start key that path.Clean would change (no climbing out of the listed prefix).
  const key = start.startsWith('/') ? start : `/${start}`;
  const segments = key.split('/').slice(1);
  if (segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < segments.length - 1)))
    throw invalidToken(`: ${start}`);
  return { rv, start: key.slice(1), given: start };
}

/** The start key of the page after `last`, relative to what the request lists. */
function startAfter(ctx: RequestContext, last: JsonObject): string {
  const meta = metadataOf(last);
  const name = stringAt(meta, 'name') ?? '';
  const namespace = stringAt(meta, 'namespace');
  const relative =
    ctx.type.namespaced && namespaceOf(ctx) === undefined ? `${namespace ?? ''}/${name}` : name;
  return `/${relative}\0`;
}

/** The store key a start key stands for (compared with objectKey: `ns/name`, `/name`). */
function storeKeyOf(ctx: RequestContext, start: string): string {
  if (!ctx.type.namespaced) return `/${start}`;
  const namespace = namespaceOf(ctx);
  return namespace === undefined ? start : `${namespace}/${start}`;
}

function parseRv(value: string): number {
  if (!/^\d+$/.test(value)) {
    throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${value}": resourceVersion must be a number`,
        field: 'resourceVersion',
      },
    ]);
  }
  return Number(value);
}

/** GET of a collection: filtered, ordered by namespace/name, paginated with limit/continue. */
export function handleList(ctx: RequestContext): Reply {
  if (ctx.info.subresource !== undefined) throw pathNotFound();
  const { store } = ctx.core;
  const key = typeKey(ctx.type);
  const matches = selectorFilter(ctx);
  const rvParam = ctx.query.get('resourceVersion') ?? '';
  const rvMatch = ctx.query.get('resourceVersionMatch');
  checkListOptions(ctx.query, false);
  if (rvParam !== '' && rvParam !== '0') {
    const rv = parseRv(rvParam);
    if (rv > store.currentRv) {
      throw new ApiError(
        failureStatus(504, 'Timeout', `Too large resource version: ${rv}, current: ${store.currentRv}`),
        {
          'Retry-After': '1',
        },
      );
    }
    if (rvMatch === 'Exact' && rv !== store.currentRv && !store.retains(key, rv)) {
      throw expired(`too old resource version: ${rv} (${store.currentRv})`);
    }
  }
  const continueText = ctx.query.get('continue') ?? '';
  let listRv = store.currentRv;
  let from: string | undefined;
  if (continueText !== '') {
    if (rvParam !== '' && rvParam !== '0')
      throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(continueText);
    if (token.rv > 0 && !store.retains(key, token.rv)) {
      // kube offers a token that continues from current state (rv -1) with its 410.
      const status = failureStatus(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
      status.metadata = { continue: encodeContinue({ rv: -1, start: token.given ?? token.start }) };
      throw new ApiError(status);
    }
    if (token.rv > 0) listRv = token.rv;
    from = storeKeyOf(ctx, token.start);
  }
  let items = store.list(key, namespaceOf(ctx)).filter(matches);
  if (from !== undefined) {
    const first = from;
    items = items.filter(
      (o) => objectKey(stringAt(metadataOf(o), 'namespace'), stringAt(metadataOf(o), 'name') ?? '') >= first,
    );
  }
  const limitText = ctx.query.get('limit');
  const limit = limitText === null ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0)
    throw badRequest(`limit must be a non-negative integer: ${limitText ?? ''}`);
  const listMeta: JsonObject = { resourceVersion: String(listRv) };
  if (limit > 0 && items.length > limit) {
    const page = items.slice(0, limit);
    const last = page[page.length - 1];
    listMeta.continue = encodeContinue({ rv: listRv, start: last ? startAfter(ctx, last) : '\0' });
    listMeta.remainingItemCount = items.length - limit;
    items = page;
  }
  if (wantsTable(ctx)) return { code: 200, body: tableOf(ctx, items, listMeta) };
  const form = partialForm(ctx);
  if (form !== undefined) {
    if (form.kind !== 'PartialObjectMetadataList') throw wrongPartialForm(ctx, form, true);
    return {
      code: 200,
      body: {
        kind: 'PartialObjectMetadataList',
        apiVersion: form.apiVersion,
        metadata: listMeta,
        // kube encodes an empty list of these as null (a nil Go slice), unlike a typed list's [].
        items: items.length === 0 ? null : items.map((o) => partialObject(form, presentObject(ctx, o))),
      },
    };
  }
  // Custom resources are listed as unstructured lists, whose metadata always carries `continue`.
  if (!ctx.type.builtin) listMeta.continue ??= '';
  return {
    code: 200,
    body: {
      kind: ctx.type.listKind,
      apiVersion: apiVersionOf(ctx.type.group, ctx.version.name),
      metadata: listMeta,
      items: items.map((o) => listItem(ctx, o)),
    },
  };
}
