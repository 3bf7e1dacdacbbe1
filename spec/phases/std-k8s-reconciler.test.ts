import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  ExponentialRateLimiter,
  isInvalidConfig,
  StdK8sReconciler,
  type ControllerConfig,
  type K8sPhaseReconciler,
  type K8sReconcilerHooks,
} from '../../lib/index.js';
import {
  eventsAbout,
  eventually,
  gone,
  metricValue,
  ref,
  sleep,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from '../controller/controller-support.js';

type W = Widget & { status?: Record<string, unknown> };

/** A phase recording its calls into `log`, with overridable steps. */
function phase(
  name: string,
  log: string[],
  over: Partial<K8sPhaseReconciler<W>> = {},
): K8sPhaseReconciler<W> {
  return {
    name,
    configure: () => void log.push(`${name}.configure`),
    read: () => void log.push(`${name}.read`),
    diff: () => {
      log.push(`${name}.diff`);
      return { needCreate: true };
    },
    create: () => void log.push(`${name}.create`),
    update: () => void log.push(`${name}.update`),
    onSuccess: () => void log.push(`${name}.onSuccess`),
    ...over,
  };
}

function hooks(log: string[], over: Partial<K8sReconcilerHooks<W>> = {}): K8sReconcilerHooks<W> {
  return {
    configure: () => void log.push('hooks.configure'),
    read: () => void log.push('hooks.read'),
    onSuccess: () => void log.push('hooks.onSuccess'),
    ...over,
  };
}

describe('StdK8sReconciler on a Controller (seed 002)', () => {
  let h: Harness;
  const controllers: Controller<W>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  async function start(
    name: string,
    reconciler: StdK8sReconciler<W>,
    extra: Partial<ControllerConfig<W>> = {},
  ): Promise<Controller<W>> {
    const c = new Controller<W>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler,
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 20, factor: 2, maxDelayMs: 200 }),
      logger: createLogger({ silent: true }),
      ...extra,
    });
    controllers.push(c);
    await c.start();
    return c;
  }

  it('C1: runs hooks and phases in order', async () => {
    const log: string[] = [];
    await start(
      'c1',
      new StdK8sReconciler<W>({ hooks: hooks(log), phases: [phase('cm', log), phase('secret', log)] }),
    );
    await h.client.create(widget('w1'));
    await eventually(() => log.includes('hooks.onSuccess'));
    expect(log.slice(0, log.indexOf('hooks.onSuccess') + 1)).toEqual([
      'hooks.configure',
      'hooks.read',
      'cm.configure',
      'cm.read',
      'cm.diff',
      'cm.create',
      'cm.onSuccess',
      'secret.configure',
      'secret.read',
      'secret.diff',
      'secret.create',
      'secret.onSuccess',
      'hooks.onSuccess',
    ]);
  });

  it('C2: a requeue from cm.read ends the pass; the next pass comes ≥ 500 ms later', async () => {
    const log: string[] = [];
    const reads: number[] = [];
    const cm = phase('cm', log, {
      read: () => {
        reads.push(performance.now());
        log.push('cm.read');
        return reads.length === 1 ? { requeueAfterMs: 500 } : undefined;
      },
    });
    await start('c2', new StdK8sReconciler<W>({ hooks: hooks(log), phases: [cm, phase('secret', log)] }));
    await h.client.create(widget('w2'));
    await eventually(() => log.includes('hooks.onSuccess'), 5_000);
    const firstPass = log.slice(0, log.indexOf('cm.read') + 1);
    expect(firstPass).toEqual(['hooks.configure', 'hooks.read', 'cm.configure', 'cm.read']);
    expect(log.indexOf('secret.configure')).toBeGreaterThan(log.indexOf('cm.read'));
    expect(reads[1]! - reads[0]!).toBeGreaterThanOrEqual(490);
  });

  it('C3: cm.create throws, cm.onError rethrows → hooks.onError gets a PhaseError naming cm; Warning Event; retried', async () => {
    const errors: string[] = [];
    let creates = 0;
    const cm = phase('cm', [], {
      create: () => {
        creates += 1;
        throw new Error('quota exceeded');
      },
      onError: (_ctx, _obj, _data, err) => {
        throw err;
      },
    });
    const r = new StdK8sReconciler<W>({
      hooks: hooks([], {
        onError: (_ctx, _obj, _data, err) => {
          errors.push((err as Error).message);
          throw err;
        },
      }),
      phases: [cm, phase('secret', [])],
    });
    await start('c3', r);
    await h.client.create(widget('w3'));
    await eventually(() => creates >= 2, 5_000, 'a retry');
    expect(errors[0]).toBe('phase cm: quota exceeded');
    await eventually(
      async () => (await eventsAbout(h, 'w3')).some((e) => e.type === 'Warning'),
      5_000,
      'a Warning Event',
    );
  });

  it('C4: cm.onError returning {} handles the error: hooks.onError not called, secret runs, the pass succeeds', async () => {
    const log: string[] = [];
    const cm = phase('cm', log, {
      create: () => {
        throw new Error('boom');
      },
      onError: () => ({}),
    });
    const parentErrors: unknown[] = [];
    const c = await start(
      'c4',
      new StdK8sReconciler<W>({
        hooks: hooks(log, { onError: (_c, _o, _d, e) => void parentErrors.push(e) }),
        phases: [cm, phase('secret', log)],
      }),
    );
    await h.client.create(widget('w4'));
    await eventually(() => log.includes('hooks.onSuccess'));
    expect(log).toContain('secret.create');
    expect(parentErrors).toEqual([]);
    expect(await metricValue(c.metrics, 'controller_runtime_reconcile_errors_total', {})).toBe(0);
  });

  it('C5: status is written once when changed, and not at all on an unchanged pass', async () => {
    let passes = 0;
    const r = new StdK8sReconciler<W>({
      hooks: {
        onSuccess: (_ctx, obj) => {
          passes += 1;
          obj.status = { ...(obj.status ?? {}), phase: 'running' };
        },
      },
      phases: [],
    });
    const c = await start('c5', r);
    await h.client.create(widget('w5'));
    await eventually(async () => (await h.client.get<W>(ref('w5'))).status?.phase === 'running');
    const written = await h.client.get<W>(ref('w5'));
    const before = passes;
    c.enqueue('default/w5');
    await eventually(() => passes > before);
    await sleep(100);
    expect((await h.client.get<W>(ref('w5'))).metadata!.resourceVersion).toBe(
      written.metadata!.resourceVersion,
    );
  });

  it('C6: deletion with a finalizer runs hooks.delete (phases not), then the finalizer goes; a failing delete keeps the object', async () => {
    const log: string[] = [];
    let fail = true;
    const r = new StdK8sReconciler<W>({
      hooks: hooks(log, {
        delete: () => {
          log.push('hooks.delete');
          if (fail) throw new Error('remote busy');
        },
      }),
      phases: [phase('cm', log)],
    });
    await start('c6', r, { finalizer: 'example.com/fin' });
    await h.client.create(widget('w6'));
    await eventually(async () =>
      (await h.client.get<W>(ref('w6'))).metadata?.finalizers?.includes('example.com/fin'),
    );
    await eventually(() => log.includes('hooks.onSuccess'));
    log.length = 0;
    await h.client.delete(ref('w6'));
    await eventually(() => log.filter((l) => l === 'hooks.delete').length >= 2, 5_000, 'delete retried');
    expect(await gone(h, 'w6')).toBe(false);
    expect(log).not.toContain('cm.create');
    fail = false;
    await eventually(() => gone(h, 'w6'), 5_000, 'object gone');
  });

  it('bad input: a phase without diff, duplicate names, a step returning a number, a diff returning nothing', async () => {
    expect(() => new StdK8sReconciler<W>({ phases: [{ name: 'cm' } as never] })).toThrow(
      /phases\[0\] \('cm'\) needs a diff/,
    );
    expect(() => new StdK8sReconciler<W>({ phases: [phase('a', []), phase('a', [])] })).toThrow(
      /two phases are named 'a'/,
    );
    expect(() => new StdK8sReconciler<W>({ phases: 'x' } as never)).toThrow(/phases must be an array/);
    expect(() => new StdK8sReconciler<W>({} as never)).toThrow(/phases must be an array/);
    const errors: unknown[] = [];
    const r = new StdK8sReconciler<W>({
      hooks: {
        onError: (_c, _o, _d, e) => {
          errors.push(e);
          return {};
        },
      },
      phases: [
        phase('num', [], { read: () => 42 as never }),
        phase('nodiff', [], { diff: () => undefined as never }),
      ],
    });
    await start('bad', r);
    await h.client.create(widget('wb'));
    await eventually(() => errors.length > 0);
    expect(isInvalidConfig(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toMatch(
      /^phase num: read returned number; return nothing, or \{ requeueAfterMs/,
    );
  });
});
