import { parseFieldSelector, parseLabelSelector } from '../algorithms.js';
import { isJsonObject, metadataOf, objectAt, stringAt, type JsonObject } from '../json.js';
import { isSelectorError } from '../selectors/selector-error.js';
import { badRequest } from '../status.js';
import type { RequestContext } from './request-context.js';

/** The label/field selector filter of a list, watch or deletecollection request (400 when invalid). */
export function selectorFilter(ctx: RequestContext): (obj: JsonObject) => boolean {
  try {
    const label = parseLabelSelector(ctx.query.get('labelSelector') ?? '');
    let fieldText = ctx.query.get('fieldSelector') ?? '';
    if (ctx.info.verb === 'watch' && ctx.info.name !== undefined) {
      fieldText = [fieldText, `metadata.name=${ctx.info.name}`].filter((t) => t !== '').join(',');
    }
    const field = parseFieldSelector(
      fieldText,
      { group: ctx.type.group, version: ctx.version.name, kind: ctx.type.kind },
      (ctx.type.selectableFields ?? []).map((f) => f.replace(/^\./, '')),
      !ctx.type.builtin,
    );
    if (label.empty && field.empty) return () => true;
    return (obj) => {
      const labels = objectAt(metadataOf(obj), 'labels');
      const stringLabels: Record<string, string> = {};
      if (isJsonObject(labels)) {
        for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') stringLabels[k] = v;
      }
      return label.matches(stringLabels) && field.matches(obj);
    };
  } catch (e) {
    if (isSelectorError(e)) throw badRequest(e.message);
    throw e;
  }
}

/** The namespace a collection request is limited to (undefined = all). */
export function namespaceOf(ctx: RequestContext): string | undefined {
  return ctx.type.namespaced ? ctx.info.namespace : undefined;
}

export function nameOf(obj: JsonObject): string {
  return stringAt(metadataOf(obj), 'name') ?? '';
}
