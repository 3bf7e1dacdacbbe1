/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { Patch, type CRUDResourceOps, type MaybePatch, type ReconcileContext } from 'reconcilekit';
import { childRef, clientFor, deleteIfExists, getIfExists, type WebsiteClient } from '../kube-client.js';
import { hasLabels, hasOwner, mergedMeta } from '../object-meta.js';
import {
  childLabels,
  ownerReference,
  podSelector,
  serverName,
  SERVICE_PORT,
  websiteKey,
  type Website,
} from '../website.js';

/** Options of {@link ServiceOps}. */
export interface ServiceOpsOptions {
  /** Client for Services. Default: the Framework's client from the context (`clientKey`). */
  client?: WebsiteClient;
}

type State = V1Service | undefined;

/** The port as this resource writes it, for comparison with what the server returns (which adds fields). */
function portKey(port: V1ServicePort): string {
  return `${port.name ?? ''}:${port.port}:${String(port.targetPort ?? port.port)}:${port.protocol ?? 'TCP'}`;
}

/** The ClusterIP Service `<name>` in front of the web server pods, port 80 → the pods' `http` port. */
export class ServiceOps implements CRUDResourceOps<Website, State, V1Service> {
  readonly name = 'service';

  constructor(private readonly options: ServiceOpsOptions) {}

  getCurrentState(ctx: ReconcileContext, site: Website): Promise<State> {
    const { namespace } = websiteKey(site);
    const ref = { apiVersion: 'v1', kind: 'Service', plural: 'services', namespace, name: serverName(site) };
    return getIfExists<V1Service>(clientFor(ctx, this.options.client), ref, ctx.signal);
  }

  getDesiredState(_ctx: ReconcileContext, site: Website): V1Service {
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: serverName(site),
        namespace: websiteKey(site).namespace,
        labels: childLabels(site),
        ownerReferences: [ownerReference(site)],
      },
      spec: {
        type: 'ClusterIP',
        selector: podSelector(site),
        ports: [{ name: 'http', port: SERVICE_PORT, targetPort: 'http', protocol: 'TCP' }],
      },
    };
  }

  newUpdatePatch(
    _ctx: ReconcileContext,
    _site: Website,
    current: State,
    desired: State,
  ): MaybePatch<V1Service> {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<V1Service>().setCreateChange(desired);
    const upToDate =
      isDeepStrictEqual(current.spec?.selector ?? {}, desired.spec?.selector) &&
      isDeepStrictEqual((current.spec?.ports ?? []).map(portKey), (desired.spec?.ports ?? []).map(portKey)) &&
      hasLabels(current, desired.metadata?.labels ?? {}) &&
      (desired.metadata?.ownerReferences ?? []).every((owner) => hasOwner(current, owner));
    if (upToDate) return undefined;
    // Keep the server-assigned fields (clusterIP, ipFamilies …): only selector and ports are ours.
    return new Patch<V1Service>().setUpdateChange({
      ...current,
      metadata: mergedMeta(current, desired),
      spec: { ...current.spec, selector: desired.spec?.selector, ports: desired.spec?.ports },
    });
  }

  newDeletePatch(_ctx: ReconcileContext, _site: Website, current: State): MaybePatch<V1Service> {
    return current === undefined ? undefined : new Patch<V1Service>().setDeleteChange(current);
  }

  async applyCreateChange(ctx: ReconcileContext, _site: Website, change: V1Service): Promise<void> {
    await clientFor(ctx, this.options.client).create(change, { signal: ctx.signal });
    ctx.logger.info('created service', { name: change.metadata?.name });
  }

  async applyDeleteChange(ctx: ReconcileContext, _site: Website, change: V1Service): Promise<void> {
    await deleteIfExists(clientFor(ctx, this.options.client), childRef(change, 'services'), ctx.signal);
    ctx.logger.info('deleted service', { name: change.metadata?.name });
  }

  async applyUpdateChange(ctx: ReconcileContext, _site: Website, change: V1Service): Promise<void> {
    await clientFor(ctx, this.options.client).replace(change, { signal: ctx.signal });
    ctx.logger.info('updated service', { name: change.metadata?.name });
  }
}
