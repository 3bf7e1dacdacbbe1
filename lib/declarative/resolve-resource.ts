import type { ObjectClient } from '../kube/object-client.js';
import type { LabelSelectorSpec, ResourceSpec } from './operator-spec.js';
import { VIEW_VERSION } from './view-kinds.js';

/** A spec's resource, resolved: the apiVersion to use and whether it is one of the operator's views. */
export interface ResolvedResource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly view: boolean;
}

/**
 * The apiVersion of a source or target: a view (no `apiGroup`) is `<view group>/v1alpha1`; the core group
 * (`''`) is `v1` unless a version is given; another group without a version takes the server's preferred
 * version (discovery of `/apis/<group>`).
 */
export async function resolveResource(
  spec: ResourceSpec,
  viewGroup: string,
  client: ObjectClient,
  signal?: AbortSignal,
): Promise<ResolvedResource> {
  if (spec.apiGroup === undefined) {
    return { apiVersion: `${viewGroup}/${spec.version ?? VIEW_VERSION}`, kind: spec.kind, view: true };
  }
  if (spec.apiGroup === '') return { apiVersion: spec.version ?? 'v1', kind: spec.kind, view: false };
  if (spec.version !== undefined) {
    return { apiVersion: `${spec.apiGroup}/${spec.version}`, kind: spec.kind, view: false };
  }
  const group = (await client.transport.request({
    method: 'GET',
    path: `/apis/${spec.apiGroup}`,
    ...(signal === undefined ? {} : { signal }),
  })) as { preferredVersion?: { groupVersion?: string } };
  const gv = group.preferredVersion?.groupVersion;
  if (gv === undefined) throw new Error(`API group ${spec.apiGroup} lists no preferred version; set version`);
  return { apiVersion: gv, kind: spec.kind, view: false };
}

/** A label selector object as the query string the API takes (`app=web,tier in (a,b),!legacy`). */
export function labelSelectorString(selector: LabelSelectorSpec | undefined): string | undefined {
  if (selector === undefined) return undefined;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.length === 0 ? undefined : parts.join(',');
}
