/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { V1Container, V1Deployment } from '@kubernetes/client-node';
import {
  Patch,
  updateAllowed,
  type CRUDResourceOps,
  type MaybePatch,
  type ReconcileContext,
} from 'reconcilekit';
import { childRef, clientFor, deleteIfExists, getIfExists, type WebsiteClient } from '../kube-client.js';
import { hasLabels, hasOwner, mergedMeta } from '../object-meta.js';
import { notePendingChange } from '../pending-changes.js';
import { pageChecksum, type PageRenderer } from '../render-page.js';
import {
  childLabels,
  configMapName,
  CONTAINER_PORT,
  imageOf,
  ownerReference,
  podSelector,
  replicasOf,
  serverName,
  websiteKey,
  type Website,
} from '../website.js';

/** Pod-template annotation carrying the page digest: a new page changes it, which rolls the pods. */
export const PAGE_CHECKSUM_ANNOTATION = 'demo.reconcilekit.io/page-checksum';

/** Name of the web server container. */
export const WEB_CONTAINER = 'web';

/** Options of {@link DeploymentOps}. */
export interface DeploymentOpsOptions {
  /** Client for Deployments. Default: the Framework's client from the context (`clientKey`). */
  client?: WebsiteClient;
  /** Renders the page, for the checksum annotation. Required. */
  render: PageRenderer;
  /**
   * Only update an existing Deployment when the context's `updateAllowed` flag is set (by the resource
   * set's initCtx). Default: false, updates always apply. Creates and deletes are never gated.
   */
  gateUpdates?: boolean;
}

type State = V1Deployment | undefined;

function webContainer(deployment: V1Deployment): V1Container | undefined {
  return deployment.spec?.template.spec?.containers.find((c) => c.name === WEB_CONTAINER);
}

/** What this resource manages in a Deployment, for comparison (server defaults elsewhere are ignored). */
function managedFields(deployment: V1Deployment): unknown[] {
  return [
    deployment.spec?.replicas,
    webContainer(deployment)?.image,
    deployment.spec?.template.metadata?.annotations?.[PAGE_CHECKSUM_ANNOTATION],
  ];
}

/** The Deployment `<name>` running the web server with the page mounted from the ConfigMap. */
export class DeploymentOps implements CRUDResourceOps<Website, State, V1Deployment> {
  readonly name = 'deployment';

  constructor(private readonly options: DeploymentOpsOptions) {}

  getCurrentState(ctx: ReconcileContext, site: Website): Promise<State> {
    const { namespace } = websiteKey(site);
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      plural: 'deployments',
      namespace,
      name: serverName(site),
    };
    return getIfExists<V1Deployment>(clientFor(ctx, this.options.client), ref, ctx.signal);
  }

  getDesiredState(_ctx: ReconcileContext, site: Website): V1Deployment {
    const selector = podSelector(site);
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: serverName(site),
        namespace: websiteKey(site).namespace,
        labels: childLabels(site),
        ownerReferences: [ownerReference(site)],
      },
      spec: {
        replicas: replicasOf(site),
        selector: { matchLabels: selector },
        template: {
          metadata: {
            labels: childLabels(site),
            annotations: { [PAGE_CHECKSUM_ANNOTATION]: pageChecksum(this.options.render(site)) },
          },
          spec: {
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: WEB_CONTAINER,
                image: imageOf(site),
                ports: [{ name: 'http', containerPort: CONTAINER_PORT }],
                readinessProbe: { httpGet: { path: '/', port: 'http' } },
                resources: { requests: { cpu: '10m', memory: '16Mi' } },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
                volumeMounts: [{ name: 'page', mountPath: '/usr/share/nginx/html', readOnly: true }],
              },
            ],
            volumes: [{ name: 'page', configMap: { name: configMapName(site) } }],
          },
        },
      },
    };
  }

  newUpdatePatch(
    ctx: ReconcileContext,
    site: Website,
    current: State,
    desired: State,
  ): MaybePatch<V1Deployment> {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<V1Deployment>().setCreateChange(desired);
    const specChanged = JSON.stringify(managedFields(current)) !== JSON.stringify(managedFields(desired));
    const metaChanged =
      !hasLabels(current, desired.metadata?.labels ?? {}) ||
      !(desired.metadata?.ownerReferences ?? []).every((owner) => hasOwner(current, owner));
    let applySpec = specChanged;
    if (specChanged && this.options.gateUpdates === true && !updateAllowed.is(ctx)) {
      ctx.logger.info('deployment update held back: updateAllowed is not set', { name: serverName(site) });
      notePendingChange(ctx, `Deployment ${serverName(site)} update held back (updates not allowed)`);
      applySpec = false;
    }
    if (!applySpec && !metaChanged) return undefined;
    const spec =
      applySpec && current.spec !== undefined && desired.spec !== undefined
        ? { ...current.spec, replicas: desired.spec.replicas, template: desired.spec.template }
        : current.spec;
    return new Patch<V1Deployment>().setUpdateChange({
      ...current,
      metadata: mergedMeta(current, desired),
      spec,
    });
  }

  newDeletePatch(_ctx: ReconcileContext, _site: Website, current: State): MaybePatch<V1Deployment> {
    return current === undefined ? undefined : new Patch<V1Deployment>().setDeleteChange(current);
  }

  async applyCreateChange(ctx: ReconcileContext, _site: Website, change: V1Deployment): Promise<void> {
    await clientFor(ctx, this.options.client).create(change, { signal: ctx.signal });
    ctx.logger.info('created deployment', { name: change.metadata?.name });
  }

  async applyDeleteChange(ctx: ReconcileContext, _site: Website, change: V1Deployment): Promise<void> {
    await deleteIfExists(clientFor(ctx, this.options.client), childRef(change, 'deployments'), ctx.signal);
    ctx.logger.info('deleted deployment', { name: change.metadata?.name });
  }

  async applyUpdateChange(ctx: ReconcileContext, _site: Website, change: V1Deployment): Promise<void> {
    await clientFor(ctx, this.options.client).replace(change, { signal: ctx.signal });
    ctx.logger.info('updated deployment', { name: change.metadata?.name });
  }
}
