import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';
import { cacheKey } from '../../lib/engine/context-keys.js';
import { InvalidConfigError, isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import { KindNotServedError } from '../../lib/errors/kind-not-served-error.js';
import { CacheSyncTimeoutError } from '../../lib/watch/informer.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  GROUP,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  WIDGET_CRD,
  type Harness,
  type Widget,
} from './harness.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('Framework watches on the embedded API server', () => {
  let h: Harness;
  let fw: Framework<Widget> | undefined;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await fw?.stop();
    fw = undefined;
    await h.close();
  });

  function make(recorder: RecordingResource, extra: Record<string, unknown> = {}): Framework<Widget> {
    fw = new Framework<Widget>({
      name: 'watcher',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      finalizer: false,
      logger: createLogger({ silent: true }),
      ...extra,
    });
    return fw;
  }

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'keeps reconciling across dropped watch connections and relists after 410 Expired',
    async () => {
      const recorder = new RecordingResource();
      await make(recorder).start();
      await h.client.create(widget('w1'));
      await eventually(() => recorder.count('create', 'w1') === 1);

      const drops = h.server.faults.inject({ resource: 'widgets', verb: 'watch', dropWatchAfterMs: 50 });
      await sleep(150);
      await h.client.create(widget('w2'));
      await eventually(() => recorder.count('create', 'w2') === 1, 5_000, 'w2 seen after drops');
      drops.remove();

      const expired = h.server.faults.inject({ resource: 'widgets', verb: 'watch', expireWatch: true });
      const expiry = h.server.faults.inject({ resource: 'widgets', verb: 'watch', dropWatchAfterMs: 30 });
      const relists = async () =>
        Number(
          /reconcilekit_watch_relists_total\{resource="[^"]*"\} (\d+)/.exec(
            await fw!.metrics.metrics(),
          )?.[1] ?? 0,
        );
      await eventually(async () => (await relists()) >= 2, 5_000, 'a relist after 410 Expired');
      await h.client.delete(ref('w1'));
      await h.client.create(widget('w3'));
      await eventually(() => recorder.count('create', 'w3') === 1, 5_000, 'w3 seen after relist');
      await eventually(() => recorder.count('delete', 'w1') === 1, 5_000, 'w1 deletion seen after relist');
      expiry.remove();
      expired.remove();
      expect(recorder.maxConcurrentPerKey).toBe(1);
    },
  );

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'reports not ready while its watch fails, and ready again once it recovers',
    async () => {
      const recorder = new RecordingResource();
      await make(recorder).start();
      expect(fw!.ready).toBe(true);
      const drops = h.server.faults.inject({ resource: 'widgets', verb: 'watch', dropWatchAfterMs: 20 });
      const outage = h.server.faults.inject({ resource: 'widgets', verb: 'watch', status: 503 });
      await eventually(() => !fw!.ready, 5_000, 'not ready during the outage');
      outage.remove();
      await eventually(() => fw!.ready, 10_000, 'ready after the outage');
      drops.remove();
      await h.client.create(widget('after-outage'));
      await eventually(() => recorder.count('create', 'after-outage') === 1);
    },
  );

  it('enqueues the owner when an owned object changes or goes, and serves owned objects from its cache', async () => {
    const recorder = new RecordingResource();
    const seen: number[] = [];
    recorder.onCreate = async (ctx, obj) => {
      const cache = ctx.get(cacheKey)?.('ConfigMap');
      seen.push(cache?.byOwnerUid(obj.metadata!.uid!).length ?? -1);
    };
    await make(recorder, { owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }] }).start();
    const owner = await h.client.create(widget('owner'));
    await eventually(() => recorder.count('create', 'owner') === 1);
    const child = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'owner-page',
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: WIDGET.apiVersion,
            kind: 'Widget',
            name: 'owner',
            uid: owner.metadata!.uid!,
            controller: true,
          },
        ],
      },
    };
    await h.client.create(child);
    await eventually(() => recorder.count('create', 'owner') === 2, 5_000, 'owner enqueued by child create');
    expect(seen.at(-1)).toBe(1);
    expect(fw!.cache('ConfigMap')?.get('default/owner-page')).toBeDefined();
    await h.client.delete({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace: 'default',
      name: 'owner-page',
    });
    await eventually(() => recorder.count('create', 'owner') === 3, 5_000, 'owner enqueued by child delete');
    expect(seen.at(-1)).toBe(0);
  });

  it('creates its CRD when missing and waits until it is established', async () => {
    const recorder = new RecordingResource();
    const gadgetCrd = structuredClone(WIDGET_CRD) as any;
    gadgetCrd.metadata.name = `gadgets.${GROUP}`;
    gadgetCrd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    fw = new Framework<Widget>({
      name: 'gadgets',
      kubeConfig: h.kubeConfig,
      crd: gadgetCrd,
      resource: { apiVersion: WIDGET.apiVersion, kind: 'Gadget' },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
    });
    await fw.start();
    await h.client.create({
      apiVersion: WIDGET.apiVersion,
      kind: 'Gadget',
      metadata: { name: 'g', namespace: 'default' },
    });
    await eventually(() => recorder.count('create') === 1);
  });

  it('fails start at once with an InvalidConfigError naming the fix when the server rejects its CRD', async () => {
    const badCrd = structuredClone(WIDGET_CRD) as any;
    badCrd.metadata.name = `gizmos.elsewhere.${GROUP}`; // must be <plural>.<group>
    badCrd.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' };
    fw = new Framework<Widget>({
      name: 'gizmos',
      kubeConfig: h.kubeConfig,
      crd: badCrd,
      resource: { apiVersion: WIDGET.apiVersion, kind: 'Gizmo' },
      resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
      logger: createLogger({ silent: true }),
    });
    const started = Date.now();
    const err = await fw.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidConfigError);
    expect((err as Error).message).toMatch(
      /config\.crd gizmos\.elsewhere\..* is rejected by the API server: .*fix config\.crd/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('fails start at once with a KindNotServedError naming what the group serves when no CRD defines the kind', async () => {
    const attempt = async (apiVersion: string, kind: string, plural?: string): Promise<unknown> => {
      fw = new Framework<Widget>({
        name: 'typo',
        kubeConfig: h.kubeConfig,
        resource: plural === undefined ? { apiVersion, kind } : { apiVersion, kind, plural },
        resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
        logger: createLogger({ silent: true }),
      });
      const started = Date.now();
      const err = await fw.start().catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5_000);
      await fw.stop();
      return err;
    };
    const typo = await attempt(WIDGET.apiVersion, 'Widgit');
    expect(typo).toBeInstanceOf(KindNotServedError);
    expect(isInvalidConfig(typo)).toBe(true);
    expect(typo).toMatchObject({ kind: 'Widgit', apiVersion: WIDGET.apiVersion });
    // On a shared server (make test-real) the group may serve other kinds of earlier tests too.
    expect((typo as Error).message).toContain(
      `Widgit (${WIDGET.apiVersion}) is not served by the API server and no CustomResourceDefinition defines it: ${WIDGET.apiVersion} serves `,
    );
    expect((typo as Error).message).toMatch(/serves (\w+, )*Widget(, \w+)* — did you mean Widget\?/);
    const group = await attempt('nope.reconcilekit.io/v1', 'Nothing');
    expect((group as Error).message).toContain(
      'nope.reconcilekit.io/v1 is not served at all: install the CustomResourceDefinition of Nothing',
    );
    // With its plural given the kind's watch starts beside discovery: the answer is the same.
    const typoWithPlural = await attempt(WIDGET.apiVersion, 'Widgit', 'widgits');
    expect(typoWithPlural).toBeInstanceOf(KindNotServedError);
    expect((typoWithPlural as Error).message).toMatch(/did you mean Widget\?/);
    const version = await attempt(`${GROUP}/v2`, 'Widget');
    expect((version as Error).message).toContain(
      `CustomResourceDefinition widgets.${GROUP} serves Widget in version(s) v1: use one of them`,
    );
  });

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'keeps retrying with a clear log line per retry while it cannot tell whether a CRD is coming, then fails start with a CacheSyncTimeoutError naming the kind',
    async () => {
      // No permission to list CustomResourceDefinitions: the CRD may be on its way, so start() waits.
      h.server.faults.inject({ resource: 'customresourcedefinitions', verb: 'list', status: 403 });
      const lines: string[] = [];
      const logger = createLogger({
        level: 'debug',
        stream: new (await import('node:stream')).Writable({
          write(chunk, _enc, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      });
      fw = new Framework<Widget>({
        name: 'missing',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: 'nope.reconcilekit.io/v1', kind: 'Nothing' },
        resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
        cacheSyncTimeoutMs: 600,
        logger,
      });
      const err = await fw.start().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CacheSyncTimeoutError);
      expect((err as Error).message).toMatch(
        /^cache of Nothing not synced within 600 ms: watching Nothing \(nope\.reconcilekit\.io\/v1\): not found \(kind Nothing is not served by nope\.reconcilekit\.io\/v1 .*\); install its CustomResourceDefinition \(kubectl apply -f <crd>\.yaml\) or pass config\.crd$/,
      );
      // A line per retry, at most two a second: tries at 0, 0.2 and 0.6 s give one or two in 600 ms.
      const hints = lines.filter((l) => l.includes('install its CustomResourceDefinition'));
      expect(hints.length).toBeGreaterThanOrEqual(1);
      expect(hints.length).toBeLessThanOrEqual(2);
    },
  );

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'stops promptly while start() still waits for a kind that is not served',
    async () => {
      h.server.faults.inject({ resource: 'customresourcedefinitions', verb: 'list', status: 403 });
      fw = new Framework<Widget>({
        name: 'impatient',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: 'nope.reconcilekit.io/v1', kind: 'Nothing' },
        resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
        logger: createLogger({ silent: true }),
      });
      const starting = fw.start();
      await sleep(100);
      const t = Date.now();
      await fw.stop();
      await expect(starting).rejects.toThrow();
      expect(Date.now() - t).toBeLessThan(1_000);
      expect(fw.ready).toBe(false);
    },
  );
});
