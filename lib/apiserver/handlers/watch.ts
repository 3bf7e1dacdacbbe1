import type { JsonObject } from '../json.js';
import { apiVersionOf, typeKey } from '../resource-type.js';
import { invalid, pathNotFound } from '../status.js';
import { WatchStream, type WatchStreamOptions } from '../watch-stream.js';
import { ConvertingWatchStream, presentConverted } from '../webhooks/converting-watch-stream.js';
import { convertForRequest } from '../webhooks/request-conversion.js';
import { namespaceOf, selectorFilter } from './filter.js';
import { partialForm, partialObject, presentObject, tableOf, wantsTable } from './presentation.js';
import { checkListOptions } from './list-options.js';
import type { RequestContext } from './request-context.js';

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';
const LIST_BLUEPRINT = 'kubernetes.io/initial-events-list-blueprint';

function listOptionsInvalid(field: string, message: string): never {
  throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
    { reason: 'FieldValueForbidden', message, field },
  ]);
}

/** A watch: flushed headers, replay from history, live events, bookmarks, timeouts, faults. */
export function handleWatch(ctx: RequestContext): void {
  if (ctx.info.subresource !== undefined) throw pathNotFound();
  const { core, query, type } = ctx;
  const key = typeKey(type);
  const matches = selectorFilter(ctx);
  const rvText = query.get('resourceVersion') ?? '';
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const sendInitial = query.get('sendInitialEvents');
  if (sendInitial !== null && sendInitial !== '' && sendInitial !== 'true' && sendInitial !== 'false')
    listOptionsInvalid('sendInitialEvents', 'Invalid value');
  if (sendInitial !== null && sendInitial !== '' && !core.settings.watchList) {
    listOptionsInvalid(
      'sendInitialEvents',
      'Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
    );
  }
  checkListOptions(query, true);
  if (rvText !== '' && !/^\d+$/.test(rvText)) {
    throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${rvText}": resourceVersion must be a number`,
        field: 'resourceVersion',
      },
    ]);
  }
  const timeoutText = query.get('timeoutSeconds');
  const timeoutSeconds = timeoutText === null ? undefined : Number(timeoutText);
  if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) {
    throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${timeoutText ?? ''}"`,
        field: 'timeoutSeconds',
      },
    ]);
  }
  const target = {
    verb: ctx.info.verb,
    resource: type.resource,
    namespace: ctx.info.namespace,
    name: ctx.info.name,
  };
  const table = wantsTable(ctx);
  const form = table ? undefined : partialForm(ctx);
  let firstTableEvent = true;
  const conversions = ctx.conversions;
  const present = (obj: JsonObject, eventType: string): unknown => {
    if (form !== undefined) {
      const shown =
        conversions === undefined
          ? presentObject(ctx, obj)
          : presentConverted(conversions, () => converting, obj);
      return partialObject(form, shown);
    }
    if (conversions !== undefined && !table) return presentConverted(conversions, () => converting, obj);
    if (!table) return presentObject(ctx, obj);
    const rendered = tableOf(ctx, [obj]);
    if (!firstTableEvent && eventType !== 'ERROR') rendered.columnDefinitions = [];
    firstTableEvent = false;
    return rendered;
  };
  const options: WatchStreamOptions = {
    filter: { typeKey: key, namespace: namespaceOf(ctx), matches },
    present,
    maxBufferBytes: core.settings.watchBufferBytes,
    ...(table
      ? {}
      : {
          shareKey:
            form === undefined
              ? apiVersionOf(type.group, ctx.version.name)
              : `${form.apiVersion}/${form.kind}\0${apiVersionOf(type.group, ctx.version.name)}`,
        }),
    // kube cannot render one event as a list: a PartialObjectMetadataList watch stays open and silent.
    ...(form?.kind === 'PartialObjectMetadataList' ? { silent: true } : {}),
    onQueued: (s) => {
      core.hub.account(s);
    },
    coordinates: target,
    onClose: () => {
      core.hub.remove(stream);
    },
    bookmark: bookmarks
      ? (rv, annotations) => ({
          kind: form === undefined ? type.kind : form.kind,
          apiVersion: form === undefined ? apiVersionOf(type.group, ctx.version.name) : form.apiVersion,
          metadata: annotations
            ? { resourceVersion: String(rv), annotations }
            : { resourceVersion: String(rv) },
        })
      : undefined,
  };
  // A version served through the conversion webhook converts each event, in order, before writing it.
  const converting =
    conversions === undefined
      ? undefined
      : new ConvertingWatchStream(ctx.res, options, (objects) => convertForRequest(ctx, objects));
  const stream: WatchStream = converting ?? new WatchStream(ctx.res, options);
  ctx.res.writeHead(200, {
    'Content-Type': 'application/json',
    'Transfer-Encoding': 'chunked',
    'Cache-Control': 'no-cache, private',
  });
  // Sends the header block now. An empty Buffer rather than flushHeaders(): Node writes the headers apart,
  // as latin1, only ahead of a Buffer; flushHeaders() joins them to an empty string body and UTF-8-encodes
  // them again, so a Warning's (already UTF-8) non-ASCII text would arrive double-encoded.
  ctx.res.write(Buffer.alloc(0));
  const resuming = rvText !== '' && rvText !== '0' && sendInitial !== 'true';
  // expireWatch rules count only watches that resume (a fresh watch has nothing to expire).
  const fired = core.faults.fire(
    target,
    (r) => (r.expireWatch === true && resuming) || r.dropWatchAfterMs !== undefined,
  );
  if (resuming && fired.some((r) => r.expireWatch === true)) {
    stream.expire(`too old resource version: ${rvText} (${core.store.currentRv}) (injected)`);
    return;
  }
  for (const rule of fired) if (rule.dropWatchAfterMs !== undefined) stream.endAfter(rule.dropWatchAfterMs);
  if (resuming) {
    const events = core.store.eventsSince(key, Number(rvText));
    if (events === undefined) {
      stream.expire(`too old resource version: ${rvText} (${core.store.currentRv})`);
      return;
    }
    for (const event of events) stream.deliver(event);
  } else if (sendInitial !== 'false') {
    for (const obj of core.store.list(key, namespaceOf(ctx))) {
      if (matches(obj)) stream.sendAdded(obj);
    }
    if (sendInitial === 'true') {
      // client-go's watch-list client (kubectl >= 1.35) learns the list type from this blueprint (an empty
      // list in the requested form, base64), which kube-apiserver >= 1.35 adds; 1.34 sends the end mark alone.
      const blueprint = {
        kind: form === undefined ? type.listKind : 'PartialObjectMetadataList',
        apiVersion: form === undefined ? apiVersionOf(type.group, ctx.version.name) : form.apiVersion,
        metadata: {},
        items: [],
      };
      stream.sendBookmark(core.store.currentRv, {
        [INITIAL_EVENTS_END]: 'true',
        [LIST_BLUEPRINT]: Buffer.from(JSON.stringify(blueprint)).toString('base64'),
      });
    } else if (core.settings.watchList) {
      // With the WatchList gate on, kube-apiserver 1.34 also ends the initial events of a watch from no
      // resourceVersion (or "0") with the end mark, when bookmarks are allowed.
      stream.sendBookmark(core.store.currentRv, { [INITIAL_EVENTS_END]: 'true' });
    }
  }
  if (stream.isClosed) return;
  core.hub.add(stream);
  // The newest resourceVersion the client has been told about; a bookmark repeating it says nothing.
  let toldRv = core.store.currentRv;
  // A bookmark promises every event up to the store's version was sent: deliver pending fan-outs first.
  const bookmarkIfNewer = (): void => {
    core.hub.flush();
    if (core.store.currentRv <= toldRv) return;
    toldRv = core.store.currentRv;
    stream.sendBookmark(toldRv);
  };
  if (bookmarks) {
    stream.every(core.settings.bookmarkIntervalMs, () => {
      core.hub.flush();
      toldRv = core.store.currentRv;
      stream.sendBookmark(toldRv);
    });
  }
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
    stream.endAfter(timeoutSeconds * 1000, bookmarkIfNewer);
  }
}
