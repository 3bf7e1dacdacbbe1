/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { ReconcileContext, updateAllowed } from 'reconcilekit';
import { describe, expect, it } from 'vitest';
import { pendingChanges } from '../../../examples/website-operator/pending-changes.js';
import { pageChecksum, renderPageV1, renderPageV2 } from '../../../examples/website-operator/render-page.js';
import { ConfigMapOps, PAGE_KEY } from '../../../examples/website-operator/resources/configmap.js';
import {
  DeploymentOps,
  PAGE_CHECKSUM_ANNOTATION,
} from '../../../examples/website-operator/resources/deployment.js';
import { ServiceOps } from '../../../examples/website-operator/resources/service.js';
import { READY_CONDITION, StatusOps } from '../../../examples/website-operator/resources/status.js';
import type { WebsiteClient } from '../../../examples/website-operator/kube-client.js';
import { asStored, storedWebsite } from './fixtures.js';

// Patch logic is pure: these tests never reach the client. Any call would be a bug, so it throws.
const noClient = new Proxy({} as WebsiteClient, {
  get: (_t, method) => () => {
    throw new Error(`unexpected client call ${String(method)}`);
  },
});

function parts(patch: unknown): Record<string, unknown> {
  if (patch === undefined || patch === null) return {};
  const p = patch as { has(part: string): boolean; get(part: string): unknown };
  const out: Record<string, unknown> = {};
  for (const part of ['create', 'delete', 'update']) if (p.has(part)) out[part] = p.get(part);
  return out;
}

describe('ConfigMapOps', () => {
  const ops = new ConfigMapOps({ client: noClient, render: renderPageV1 });
  const site = storedWebsite();
  const ctx = new ReconcileContext();

  it('desires a ConfigMap named <site>-page with the rendered page, labels and a controller owner', () => {
    const desired = ops.getDesiredState(ctx, site);
    expect(desired.metadata?.name).toBe('hello-page');
    expect(desired.metadata?.namespace).toBe('demo');
    expect(desired.data?.[PAGE_KEY]).toBe(renderPageV1(site));
    expect(desired.metadata?.labels).toMatchObject({
      'demo.reconcilekit.io/website': 'hello',
      'demo.reconcilekit.io/version': '1',
    });
    expect(desired.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Website', name: 'hello', uid: site.metadata.uid, controller: true }),
    ]);
  });

  it('creates when nothing exists', () => {
    const desired = ops.getDesiredState(ctx, site);
    expect(parts(ops.newUpdatePatch(ctx, site, undefined, desired))).toEqual({ create: desired });
  });

  it('does nothing when the stored ConfigMap matches (server fields and foreign labels ignored)', () => {
    const desired = ops.getDesiredState(ctx, site);
    const current = asStored(desired);
    current.metadata = { ...current.metadata, labels: { ...current.metadata?.labels, team: 'web' } };
    expect(ops.newUpdatePatch(ctx, site, current, desired)).toBeUndefined();
  });

  it('updates the page, keeping resourceVersion and foreign labels', () => {
    const current = asStored(ops.getDesiredState(ctx, site));
    current.metadata = { ...current.metadata, labels: { ...current.metadata?.labels, team: 'web' } };
    const edited = storedWebsite({ title: 'New title' });
    const desired = ops.getDesiredState(ctx, edited);
    const { update, ...rest } = parts(ops.newUpdatePatch(ctx, edited, current, desired));
    expect(rest).toEqual({});
    const change = update as V1ConfigMap;
    expect(change.data?.[PAGE_KEY]).toContain('New title');
    expect(change.metadata?.resourceVersion).toBe('7');
    expect(change.metadata?.labels?.team).toBe('web');
  });

  it('deletes what exists on the delete path, and nothing when it is gone', () => {
    const current = asStored(ops.getDesiredState(ctx, site));
    expect(parts(ops.newDeletePatch(ctx, site, current))).toEqual({ delete: current });
    expect(ops.newDeletePatch(ctx, site, undefined)).toBeUndefined();
  });
});

describe('DeploymentOps', () => {
  const site = storedWebsite({ replicas: 2 }, { 'demo.reconcilekit.io/version': '2' });

  function serverDefaulted(deployment: V1Deployment): V1Deployment {
    const stored = asStored(structuredClone(deployment));
    const container = stored.spec?.template.spec?.containers[0];
    if (container !== undefined) {
      container.imagePullPolicy = 'IfNotPresent';
      container.terminationMessagePath = '/dev/termination-log';
    }
    if (stored.spec !== undefined) stored.spec.revisionHistoryLimit = 10;
    return stored;
  }

  it('desires replicas, image, the page checksum on the pod template and the ConfigMap volume', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2 });
    const desired = ops.getDesiredState(new ReconcileContext(), site);
    expect(desired.spec?.replicas).toBe(2);
    expect(desired.spec?.template.metadata?.annotations?.[PAGE_CHECKSUM_ANNOTATION]).toBe(
      pageChecksum(renderPageV2(site)),
    );
    expect(desired.spec?.template.spec?.volumes?.[0]?.configMap?.name).toBe('hello-page');
    expect(desired.spec?.template.spec?.containers[0]?.image).toBe('nginxinc/nginx-unprivileged:1.27-alpine');
    expect(desired.spec?.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'website',
      'app.kubernetes.io/instance': 'hello',
    });
  });

  it('creates when missing, even when updates are gated', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2, gateUpdates: true });
    const ctx = new ReconcileContext();
    const desired = ops.getDesiredState(ctx, site);
    expect(parts(ops.newUpdatePatch(ctx, site, undefined, desired))).toEqual({ create: desired });
  });

  it('does nothing when only server-defaulted fields differ', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2 });
    const ctx = new ReconcileContext();
    const desired = ops.getDesiredState(ctx, site);
    expect(ops.newUpdatePatch(ctx, site, serverDefaulted(desired), desired)).toBeUndefined();
  });

  it('updates replicas and template when ungated, keeping server fields', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV1 });
    const ctx = new ReconcileContext();
    const current = serverDefaulted(ops.getDesiredState(ctx, site));
    const edited = storedWebsite(
      { replicas: 4, content: 'changed' },
      { 'demo.reconcilekit.io/version': '2' },
    );
    const desired = ops.getDesiredState(ctx, edited);
    const { update } = parts(ops.newUpdatePatch(ctx, edited, current, desired)) as { update: V1Deployment };
    expect(update.spec?.replicas).toBe(4);
    expect(update.spec?.revisionHistoryLimit).toBe(10);
    expect(update.metadata?.resourceVersion).toBe('7');
    expect(update.spec?.template.metadata?.annotations?.[PAGE_CHECKSUM_ANNOTATION]).toBe(
      pageChecksum(renderPageV1(edited)),
    );
  });

  it('holds a spec update back when gated and updateAllowed is not set, and records it for the status', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2, gateUpdates: true });
    const ctx = new ReconcileContext();
    updateAllowed.install(ctx);
    const current = serverDefaulted(ops.getDesiredState(ctx, site));
    const edited = storedWebsite({ replicas: 5 }, { 'demo.reconcilekit.io/version': '2' });
    expect(ops.newUpdatePatch(ctx, edited, current, ops.getDesiredState(ctx, edited))).toBeUndefined();
    expect(pendingChanges(ctx)).toEqual(['Deployment hello update held back (updates not allowed)']);
  });

  it('applies the gated update once updateAllowed is set', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2, gateUpdates: true });
    const ctx = new ReconcileContext();
    updateAllowed.install(ctx);
    updateAllowed.set(ctx);
    const current = serverDefaulted(ops.getDesiredState(ctx, site));
    const edited = storedWebsite({ replicas: 5 }, { 'demo.reconcilekit.io/version': '2' });
    const { update } = parts(ops.newUpdatePatch(ctx, edited, current, ops.getDesiredState(ctx, edited))) as {
      update: V1Deployment;
    };
    expect(update.spec?.replicas).toBe(5);
    expect(pendingChanges(ctx)).toEqual([]);
  });

  it('still repairs labels when a spec update is held back, without touching the spec', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2, gateUpdates: true });
    const ctx = new ReconcileContext();
    const current = serverDefaulted(ops.getDesiredState(ctx, site));
    current.metadata = { ...current.metadata, labels: {} };
    const edited = storedWebsite({ replicas: 5 }, { 'demo.reconcilekit.io/version': '2' });
    const { update } = parts(ops.newUpdatePatch(ctx, edited, current, ops.getDesiredState(ctx, edited))) as {
      update: V1Deployment;
    };
    expect(update.spec?.replicas).toBe(2);
    expect(update.metadata?.labels?.['demo.reconcilekit.io/website']).toBe('hello');
  });

  it('deletes what exists on the delete path', () => {
    const ops = new DeploymentOps({ client: noClient, render: renderPageV2 });
    const ctx = new ReconcileContext();
    const current = serverDefaulted(ops.getDesiredState(ctx, site));
    expect(parts(ops.newDeletePatch(ctx, site, current))).toEqual({ delete: current });
    expect(ops.newDeletePatch(ctx, site, undefined)).toBeUndefined();
  });
});

describe('ServiceOps', () => {
  const ops = new ServiceOps({ client: noClient });
  const ctx = new ReconcileContext();
  const site = storedWebsite();

  function serverFilled(service: V1Service): V1Service {
    const stored = asStored(structuredClone(service));
    if (stored.spec !== undefined) {
      stored.spec.clusterIP = '10.96.0.17';
      stored.spec.sessionAffinity = 'None';
    }
    return stored;
  }

  it('creates a ClusterIP service on port 80 selecting the pods', () => {
    const desired = ops.getDesiredState(ctx, site);
    expect(desired.spec?.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    expect(parts(ops.newUpdatePatch(ctx, site, undefined, desired))).toEqual({ create: desired });
  });

  it('does nothing when only server-assigned fields differ', () => {
    const desired = ops.getDesiredState(ctx, site);
    expect(ops.newUpdatePatch(ctx, site, serverFilled(desired), desired)).toBeUndefined();
  });

  it('updates a changed selector and keeps the clusterIP', () => {
    const desired = ops.getDesiredState(ctx, site);
    const current = serverFilled(desired);
    if (current.spec !== undefined) current.spec.selector = { app: 'something-else' };
    const { update } = parts(ops.newUpdatePatch(ctx, site, current, desired)) as { update: V1Service };
    expect(update.spec?.selector).toEqual(desired.spec?.selector);
    expect(update.spec?.clusterIP).toBe('10.96.0.17');
  });

  it('deletes what exists on the delete path', () => {
    const current = serverFilled(ops.getDesiredState(ctx, site));
    expect(parts(ops.newDeletePatch(ctx, site, current))).toEqual({ delete: current });
  });
});

describe('StatusOps', () => {
  const fixed = new Date('2026-05-01T10:00:00.123Z');
  const ops = new StatusOps({ client: noClient, now: () => fixed });
  const site = storedWebsite();

  it('desires observedGeneration, the service URL and Ready=True when nothing is pending', () => {
    const desired = ops.getDesiredState(new ReconcileContext(), site);
    expect(desired).toEqual({
      observedGeneration: 3,
      url: 'http://hello.demo.svc.cluster.local',
      conditions: [
        {
          type: READY_CONDITION,
          status: 'True',
          reason: 'Reconciled',
          message: 'ConfigMap, Deployment, Service and page file match the spec',
          lastTransitionTime: '2026-05-01T10:00:00Z',
          observedGeneration: 3,
        },
      ],
    });
  });

  it('reports held-back changes as Ready=False', () => {
    const ctx = new ReconcileContext();
    const deployment = new DeploymentOps({ client: noClient, render: renderPageV2, gateUpdates: true });
    const current = asStored(deployment.getDesiredState(ctx, site));
    const edited = storedWebsite({ replicas: 3 });
    deployment.newUpdatePatch(ctx, edited, current, deployment.getDesiredState(ctx, edited));
    const ready = ops.getDesiredState(ctx, edited).conditions?.[0];
    expect(ready).toMatchObject({ status: 'False', reason: 'UpdatesHeldBack' });
    expect(ready?.message).toContain('Deployment hello update held back');
  });

  it('writes the status when it is missing or stale, and not when it is current', () => {
    const ctx = new ReconcileContext();
    const desired = ops.getDesiredState(ctx, site);
    expect(parts(ops.newUpdatePatch(ctx, site, undefined, desired))).toEqual({ update: desired });
    const withStatus = { ...site, status: desired };
    expect(
      ops.newUpdatePatch(ctx, withStatus, withStatus.status, ops.getDesiredState(ctx, withStatus)),
    ).toBeUndefined();
    const edited = { ...withStatus, metadata: { ...withStatus.metadata, generation: 4 } };
    const next = ops.getDesiredState(ctx, edited);
    expect(parts(ops.newUpdatePatch(ctx, edited, edited.status, next))).toEqual({ update: next });
  });

  it('keeps lastTransitionTime while the Ready status stays the same', () => {
    const ctx = new ReconcileContext();
    const earlier = { ...site, status: { ...ops.getDesiredState(ctx, site) } };
    earlier.status.conditions = earlier.status.conditions?.map((c) => ({
      ...c,
      lastTransitionTime: '2020-01-01T00:00:00Z',
    }));
    const later = { ...earlier, metadata: { ...earlier.metadata, generation: 9 } };
    expect(ops.getDesiredState(ctx, later).conditions?.[0]?.lastTransitionTime).toBe('2020-01-01T00:00:00Z');
  });

  it('leaves the status alone on the delete path', () => {
    expect(ops.newDeletePatch()).toBeUndefined();
  });
});

describe('page rendering', () => {
  it('escapes HTML and renders versions differently', () => {
    const site = storedWebsite();
    const v1 = renderPageV1(site);
    const v2 = renderPageV2(site);
    expect(v1).toContain('<h1>Hello &lt;world&gt;</h1>');
    expect(v1).not.toContain('<world>');
    expect(v2).toContain('<p>First paragraph.</p>');
    expect(v2).toContain('<p>Second &amp; last.</p>');
    expect(v2).toContain('resource set v2');
    expect(pageChecksum(v1)).not.toBe(pageChecksum(v2));
  });
});
