import type { Reply } from '../http-io.js';
import { metadataOf, stringAt, type JsonObject } from '../json.js';
import { objectKey } from '../store.js';
import { apiVersionOf, typeKey } from '../resource-type.js';
import { ApiError, badRequest, expired, failureStatus, invalid, pathNotFound } from '../status.js';
import { namespaceOf, selectorFilter } from './filter.js';
import { listItem, presentObject, tableOf, wantsTable } from './presentation.js';
import type { RequestContext } from './request-context.js';
import { scaleOf } from './scale.js';
import { currentObjectOrCheck } from './update.js';

/** GET of one object (or its status/scale subresource). */
export function handleGet(ctx: RequestContext): Reply {
  const sub = ctx.info.subresource;
  const current = currentObjectOrCheck(ctx);
  if (sub === 'scale') return { code: 200, body: scaleOf(ctx, current) };
  if (wantsTable(ctx)) {
    return {
      code: 200,
      body: tableOf(ctx, [current], { resourceVersion: metadataOf(current).resourceVersion }),
    };
  }
  return { code: 200, body: presentObject(ctx, current) };
}

interface ContinueToken {
  rv: number;
  key: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'rk1', rv: token.rv, start: token.key })).toString('base64url');
}

function decodeContinue(text: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (parsed.v === 'rk1' && typeof parsed.rv === 'number' && typeof parsed.start === 'string') {
      return { rv: parsed.rv, key: parsed.start };
    }
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
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
  if (rvMatch !== null && rvMatch !== '') {
    if (rvMatch !== 'NotOlderThan' && rvMatch !== 'Exact') {
      throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${rvMatch}"`,
          field: 'resourceVersionMatch',
        },
      ]);
    }
    if (rvParam === '' || (rvMatch === 'Exact' && rvParam === '0')) {
      throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: resourceVersionMatch requires a resourceVersion',
          field: 'resourceVersionMatch',
        },
      ]);
    }
  }
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
  let startAfter: string | undefined;
  if (continueText !== '') {
    if (rvParam !== '' && rvParam !== '0')
      throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(continueText);
    if (!store.retains(key, token.rv)) {
      throw expired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
    listRv = token.rv;
    startAfter = token.key;
  }
  let items = store.list(key, namespaceOf(ctx)).filter(matches);
  if (startAfter !== undefined) {
    const after = startAfter;
    items = items.filter(
      (o) => objectKey(stringAt(metadataOf(o), 'namespace'), stringAt(metadataOf(o), 'name') ?? '') > after,
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
    const lastMeta = last ? metadataOf(last) : {};
    listMeta.continue = encodeContinue({
      rv: listRv,
      key: objectKey(stringAt(lastMeta, 'namespace'), stringAt(lastMeta, 'name') ?? ''),
    });
    listMeta.remainingItemCount = items.length - limit;
    items = page;
  }
  if (wantsTable(ctx)) return { code: 200, body: tableOf(ctx, items, listMeta) };
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
