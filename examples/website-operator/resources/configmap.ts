/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { Patch, type CRUDResourceOps, type MaybePatch, type ReconcileContext } from 'reconcilekit';
import { childRef, clientFor, deleteIfExists, getIfExists, type WebsiteClient } from '../kube-client.js';
import { hasLabels, hasOwner, mergedMeta } from '../object-meta.js';
import type { PageRenderer } from '../render-page.js';
import { childLabels, configMapName, ownerReference, websiteKey, type Website } from '../website.js';

/** Key of the rendered page in the ConfigMap (the file name nginx serves). */
export const PAGE_KEY = 'index.html';

/** Options of {@link ConfigMapOps}. */
export interface ConfigMapOpsOptions {
  /** Client for ConfigMaps. Default: the Framework's client from the context (`clientKey`). */
  client?: WebsiteClient;
  /** Renders the page (the resource set's version decides how). Required. */
  render: PageRenderer;
}

type State = V1ConfigMap | undefined;

/** The ConfigMap `<name>-page` holding the rendered page under `index.html`. */
export class ConfigMapOps implements CRUDResourceOps<Website, State, V1ConfigMap> {
  readonly name = 'configmap';

  constructor(private readonly options: ConfigMapOpsOptions) {}

  getCurrentState(ctx: ReconcileContext, site: Website): Promise<State> {
    const { namespace } = websiteKey(site);
    const ref = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace,
      name: configMapName(site),
    };
    return getIfExists<V1ConfigMap>(clientFor(ctx, this.options.client), ref, ctx.signal);
  }

  getDesiredState(_ctx: ReconcileContext, site: Website): V1ConfigMap {
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: configMapName(site),
        namespace: websiteKey(site).namespace,
        labels: childLabels(site),
        ownerReferences: [ownerReference(site)],
      },
      data: { [PAGE_KEY]: this.options.render(site) },
    };
  }

  newUpdatePatch(
    _ctx: ReconcileContext,
    _site: Website,
    current: State,
    desired: State,
  ): MaybePatch<V1ConfigMap> {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<V1ConfigMap>().setCreateChange(desired);
    const upToDate =
      isDeepStrictEqual(current.data ?? {}, desired.data) &&
      hasLabels(current, desired.metadata?.labels ?? {}) &&
      (desired.metadata?.ownerReferences ?? []).every((owner) => hasOwner(current, owner));
    if (upToDate) return undefined;
    return new Patch<V1ConfigMap>().setUpdateChange({
      ...current,
      metadata: mergedMeta(current, desired),
      data: desired.data,
    });
  }

  newDeletePatch(_ctx: ReconcileContext, _site: Website, current: State): MaybePatch<V1ConfigMap> {
    return current === undefined ? undefined : new Patch<V1ConfigMap>().setDeleteChange(current);
  }

  async applyCreateChange(ctx: ReconcileContext, _site: Website, change: V1ConfigMap): Promise<void> {
    await clientFor(ctx, this.options.client).create(change, { signal: ctx.signal });
    ctx.logger.info('created configmap', { name: change.metadata?.name });
  }

  async applyDeleteChange(ctx: ReconcileContext, _site: Website, change: V1ConfigMap): Promise<void> {
    await deleteIfExists(clientFor(ctx, this.options.client), childRef(change, 'configmaps'), ctx.signal);
    ctx.logger.info('deleted configmap', { name: change.metadata?.name });
  }

  async applyUpdateChange(ctx: ReconcileContext, _site: Website, change: V1ConfigMap): Promise<void> {
    await clientFor(ctx, this.options.client).replace(change, { signal: ctx.signal });
    ctx.logger.info('updated configmap', { name: change.metadata?.name });
  }
}
