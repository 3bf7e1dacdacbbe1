import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  eventRecorderKey,
  Framework,
  InformerCache,
  ObjectClient,
  Operator,
  ResourceSet,
  clientKey,
  isLeaseExpired,
  type ControllerConfig,
} from '../../lib/index.js';
import {
  eventsAbout,
  eventually,
  metricValue,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from '../controller/controller-support.js';

const silent = createLogger({ silent: true });

describe('Operator and shared informers on the embedded API server', () => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h.close();
  });

  function controller(
    name: string,
    seen: string[],
    extra: Partial<ControllerConfig<Widget>> = {},
  ): Controller<Widget> {
    const c = new Controller<Widget>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: (_ctx, req) => {
        seen.push(req.key);
      },
      logger: silent,
      ...extra,
    });
    cleanups.push(() => c.stop());
    return c;
  }

  it('A11: two controllers on one InformerCache make one list+watch and both reconcile', async () => {
    const client = new ObjectClient({ kubeConfig: h.kubeConfig });
    const informers = new InformerCache({ client, logger: silent });
    cleanups.push(async () => {
      await informers.stop();
      client.close();
    });
    const a: string[] = [];
    const b: string[] = [];
    const ca = controller('a', a, { informers });
    const cb = controller('b', b, { informers });
    await Promise.all([ca.start(), cb.start()]);
    expect(informers.size).toBe(1);
    await h.client.create(widget('shared'));
    await eventually(() => a.includes('default/shared') && b.includes('default/shared'));
    await ca.stop();
    expect(informers.size).toBe(1);
    await cb.stop();
    expect(informers.size).toBe(0);
  });

  it('A11 through an Operator: one registry, one relist for two controllers, Events from user code', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent, healthServer: { port: 0 } });
    cleanups.push(() => operator.stop());
    const a: string[] = [];
    const ca = controller('a', a, {
      reconciler: (ctx, req) => {
        a.push(req.key);
        ctx.get(eventRecorderKey)?.({ type: 'Normal', reason: 'Greeted', message: `hello ${req.key}` });
      },
    });
    const fwSeen: string[] = [];
    const fw = new Framework<Widget>({
      name: 'crud',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      finalizer: false,
      logger: silent,
      resourceSets: [
        new ResourceSet<Widget>({
          resources: [
            {
              name: 'r',
              ensureCreated: async (_ctx, obj) => {
                fwSeen.push(obj.metadata?.name ?? '');
              },
              ensureDeleted: async () => undefined,
            },
          ],
        }),
      ],
    });
    cleanups.push(() => fw.stop());
    operator.addController(ca);
    operator.addController(fw);
    expect(() => {
      operator.addController(ca);
    }).toThrow(/already added/);
    await operator.start();
    expect(ca.metrics).toBe(operator.metrics);
    expect(fw.metrics).toBe(operator.metrics);
    await h.client.create(widget('one'));
    await eventually(() => a.includes('default/one') && fwSeen.includes('one'));
    const resource = `${WIDGET.apiVersion}/${WIDGET.kind}`;
    expect(await metricValue(operator.metrics, 'reconcilekit_watch_relists_total', { resource })).toBe(1);
    const text = await operator.metrics.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="a",result="success"}');
    expect(text).toContain('controller_runtime_reconcile_total{controller="crud",result="success"}');
    const readyz = await fetch(`${operator.healthUrl}/readyz`);
    expect(readyz.status).toBe(200);
    await eventually(async () => (await eventsAbout(h, 'one')).some((e) => e.reason === 'Greeted'));
  });

  it('removeController stops one controller and releases its share of the watch; the others keep running', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent, healthServer: { port: 0 } });
    cleanups.push(() => operator.stop());
    const a: string[] = [];
    const b: string[] = [];
    const ca = controller('a', a);
    operator.addController(ca);
    operator.addController(controller('b', b));
    await operator.start();
    expect(operator.informers?.size).toBe(1);
    await h.client.create(widget('before'));
    await eventually(() => a.includes('default/before') && b.includes('default/before'));

    expect(await operator.removeController(ca)).toBe(true);
    expect(await operator.removeController('a')).toBe(false);
    expect(operator.informers?.size).toBe(1); // b still uses the shared watch
    await h.client.create(widget('after'));
    await eventually(() => b.includes('default/after'));
    expect(a).not.toContain('default/after');
    // The stopped controller is gone from the readiness checks too (a stopped member would fail /readyz).
    expect((await fetch(`${operator.healthUrl ?? ''}/readyz`)).status).toBe(200);

    expect(await operator.removeController('b')).toBe(true);
    expect(operator.informers?.size).toBe(0); // the last user released it: the watch stopped
  });

  it('a controller for another cluster inside an Operator watches its own cluster, not the operator’s', async () => {
    const other = await startHarness();
    cleanups.push(() => other.close());
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent });
    cleanups.push(() => operator.stop());
    const here: string[] = [];
    const there: string[] = [];
    operator.addController(controller('here', here));
    operator.addController(controller('there', there, { kubeConfig: other.kubeConfig }));
    await operator.start();
    await h.client.create(widget('on-operator-cluster'));
    await other.client.create(widget('on-other-cluster'));
    await eventually(
      () => here.includes('default/on-operator-cluster') && there.includes('default/on-other-cluster'),
    );
    expect(here).not.toContain('default/on-other-cluster');
    expect(there).not.toContain('default/on-operator-cluster');
  });

  it('A12: the first start failure stops the others and run() rejects with it', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent });
    const healthy = controller('healthy', []);
    const broken = new Controller({
      name: 'broken',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: 'nothere.example.com/v1', kind: 'Ghost' },
      reconciler: () => undefined,
      cacheSyncTimeoutMs: 500,
      logger: silent,
    });
    cleanups.push(() => broken.stop());
    let ownError: unknown;
    const ownStart = broken.start.bind(broken);
    broken.start = () =>
      ownStart().catch((err: unknown) => {
        ownError = err;
        throw err;
      });
    operator.addController(healthy);
    operator.addController(broken);
    let runError: unknown;
    await operator.run().catch((err: unknown) => {
      runError = err;
    });
    expect(runError).toBeDefined();
    expect(runError).toBe(ownError);
    expect(healthy.ready).toBe(false);
    expect(operator.ready).toBe(false);
  });

  it('A13: run(signal) serves /readyz while running and resolves after every controller stopped; late additions start', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent, healthServer: { port: 0 } });
    const first: string[] = [];
    const late: string[] = [];
    const c1 = controller('first', first);
    operator.addController(c1);
    const abort = new AbortController();
    const running = operator.run(abort.signal);
    await eventually(() => operator.ready);
    expect((await fetch(`${operator.healthUrl}/readyz`)).status).toBe(200);
    const c2 = controller('late', late);
    operator.addController(c2);
    await eventually(() => c2.ready);
    await h.client.create(widget('w'));
    await eventually(() => first.includes('default/w') && late.includes('default/w'));
    abort.abort();
    await running;
    expect(c1.ready).toBe(false);
    expect(c2.ready).toBe(false);
    expect(operator.informers?.size).toBe(0);
  });

  it('fences every controller with the operator Lease: after a freeze past the renew deadline, a write is refused before it is sent', async () => {
    const operator = new Operator({
      kubeConfig: h.kubeConfig,
      logger: silent,
      leaderElection: {
        leaseName: 'fenced-op',
        namespace: 'default',
        leaseDurationMs: 1500,
        renewDeadlineMs: 600,
        retryPeriodMs: 100,
      },
    });
    cleanups.push(() => operator.stop());
    const refused: unknown[] = [];
    const written: string[] = [];
    const c = controller('fenced', [], {
      reconciler: async (ctx, req) => {
        const name = req.object.metadata?.name ?? '';
        // Blocks the event loop as a SIGSTOP would: no renewal can run meanwhile.
        if (name === 'freeze') {
          const until = performance.now() + 700;
          while (performance.now() < until) {
            // frozen
          }
        }
        const cm = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${name}`, namespace: 'default' },
        };
        try {
          await ctx.get(clientKey)!.create(cm);
          written.push(name);
        } catch (err) {
          if (isLeaseExpired(err)) refused.push(err);
          else throw err;
        }
      },
    });
    operator.addController(c);
    await operator.start();
    await eventually(() => c.leading);
    await h.client.create(widget('before'));
    await eventually(() => written.includes('before'));
    await h.client.create(widget('freeze'));
    await eventually(() => refused.length >= 1, 5_000);
    // The write after the freeze never reached the server.
    await expect(
      h.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cm-freeze' }),
    ).rejects.toThrow();
    expect(written).not.toContain('freeze');
  });

  it('one Lease gates every controller: workers run only once the operator leads', async () => {
    const operator = new Operator({
      kubeConfig: h.kubeConfig,
      logger: silent,
      leaderElection: { leaseName: 'op', namespace: 'default' },
    });
    cleanups.push(() => operator.stop());
    const seen: string[] = [];
    const c1 = controller('led', seen, { leaderElection: { leaseName: 'own', namespace: 'default' } });
    operator.addController(c1);
    await operator.start();
    await eventually(() => c1.leading);
    await h.client.create(widget('led'));
    await eventually(() => seen.includes('default/led'));
    const leases = await h.client.list({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      plural: 'leases',
      namespace: 'default',
    });
    expect(leases.items.map((l) => l.metadata?.name)).toEqual(['op']);
  });
});
