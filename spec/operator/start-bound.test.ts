import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  DEFAULT_MEMBER_START_TIMEOUT_MS,
  InvalidConfigError,
  isMemberStart,
  isStartTimeout,
  MemberStartError,
  Operator,
  StartTimeoutError,
  type OperatorController,
} from '../../lib/index.js';
import {
  eventually,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from '../controller/controller-support.js';

const silent = createLogger({ silent: true });

/** A member whose start() never settles; counts its stop() calls. */
function hungMember(name: string, stopHangs = false): OperatorController & { stops: number } {
  const m = {
    name,
    stops: 0,
    start: () => new Promise<void>(() => undefined),
    stop: () => {
      m.stops++;
      return stopHangs ? new Promise<void>(() => undefined) : Promise.resolve();
    },
  };
  return m;
}

async function readyz(url: string | undefined): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/readyz?verbose`);
  return { status: res.status, text: await res.text() };
}

describe('Operator: a member that hangs or throws in start() cannot silence the operator', () => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(async () => {
    h = await startHarness();
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h.close();
    process.off('unhandledRejection', onUnhandled);
  });

  function reconciling(name: string, seen: string[]): Controller<Widget> {
    const c = new Controller<Widget>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: (_ctx, req) => {
        seen.push(req.key);
      },
      logger: silent,
    });
    cleanups.push(() => c.stop());
    return c;
  }

  it('a start() that never settles: /readyz 503 naming it while it starts, then start() rejects with StartTimeoutError naming it within the timeout, and the operator stops', async () => {
    const operator = new Operator({
      kubeConfig: h.kubeConfig,
      logger: silent,
      healthServer: { port: 0 },
      leaderElection: { leaseName: 'hung-op', namespace: 'default' },
      startTimeoutMs: 1_500,
    });
    cleanups.push(() => operator.stop());
    const healthy = reconciling('healthy', []);
    const hung = hungMember('hung');
    operator.addController(healthy);
    operator.addController(hung);
    const began = performance.now();
    let failure: unknown;
    const starting = operator.start().catch((err: unknown) => {
      failure = err;
    });
    await eventually(() => operator.healthUrl !== undefined);
    await eventually(async () => (await readyz(operator.healthUrl)).text.includes('hung: starting'));
    const during = await readyz(operator.healthUrl);
    expect(during.status).toBe(503);
    expect(during.text).toMatch(
      /hung: starting: start\(\) has not finished after \d+ s \(start timeout 1500 ms\)/,
    );
    await starting;
    const took = performance.now() - began;
    expect(failure).toBeInstanceOf(StartTimeoutError);
    expect(isStartTimeout(failure)).toBe(true);
    expect((failure as StartTimeoutError).member).toBe('hung');
    expect((failure as Error).message).toContain('controller "hung" did not finish start() within 1500 ms');
    expect(took).toBeGreaterThanOrEqual(1_400);
    expect(took).toBeLessThan(1_500 + 3_000);
    // Failed loudly: everything stopped, nothing left standing by for the Lease.
    expect(hung.stops).toBe(1);
    expect(healthy.ready).toBe(false);
    expect(operator.ready).toBe(false);
    expect(unhandled).toEqual([]);
  });

  it('a start() that throws synchronously: start() rejects with MemberStartError naming it (cause kept), no unhandled rejection', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent, startTimeoutMs: 5_000 });
    cleanups.push(() => operator.stop());
    const healthy = reconciling('healthy', []);
    const own = new TypeError('cannot read properties of undefined');
    let stops = 0;
    const throwing: OperatorController = {
      name: 'throws',
      start: () => {
        throw own;
      },
      stop: () => {
        stops++;
        return Promise.resolve();
      },
    };
    // A second slow member whose start() rejects after the throw: its rejection must be handled too.
    const lateReject: OperatorController = {
      name: 'late-reject',
      start: () =>
        new Promise<void>((_r, reject) =>
          setTimeout(() => {
            reject(new Error('late'));
          }, 200),
        ),
      stop: () => Promise.resolve(),
    };
    operator.addController(healthy);
    operator.addController(throwing);
    operator.addController(lateReject);
    const err = await operator.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MemberStartError);
    expect(isMemberStart(err)).toBe(true);
    expect((err as MemberStartError).member).toBe('throws');
    expect((err as Error).message).toContain(
      'controller "throws": start() threw instead of returning a promise',
    );
    expect((err as Error).cause).toBe(own);
    expect(stops).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(unhandled).toEqual([]);
  });

  it('a hung member added after start: /readyz names it, after its own timeout it is stopped and reported failed; the others keep reconciling', async () => {
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent, healthServer: { port: 0 } });
    cleanups.push(() => operator.stop());
    const seen: string[] = [];
    operator.addController(reconciling('first', seen));
    await operator.start();
    expect((await readyz(operator.healthUrl)).status).toBe(200);
    const hung = hungMember('late-hung');
    operator.addController(hung, { startTimeoutMs: 600 });
    const during = await readyz(operator.healthUrl);
    expect(during.status).toBe(503);
    expect(during.text).toContain('late-hung: starting');
    await eventually(async () =>
      (await readyz(operator.healthUrl)).text.includes('late-hung: failed to start'),
    );
    const after = await readyz(operator.healthUrl);
    expect(after.status).toBe(503);
    expect(after.text).toContain('controller "late-hung" did not finish start() within 600 ms');
    expect(hung.stops).toBe(1);
    await h.client.create(widget('still'));
    await eventually(() => seen.includes('default/still'));
    expect(unhandled).toEqual([]);
  });

  it("a member whose start() and stop() both hang: the operator's start() still rejects, bounded by startTimeoutMs + stopTimeoutMs", async () => {
    const operator = new Operator({ logger: silent, startTimeoutMs: 300, stopTimeoutMs: 300 });
    const hung = hungMember('stuck', true);
    operator.addController(hung);
    const began = performance.now();
    await expect(operator.start()).rejects.toBeInstanceOf(StartTimeoutError);
    expect(performance.now() - began).toBeLessThan(300 + 300 + 1_500);
    expect(hung.stops).toBe(1);
  });

  it('stopping the operator while a member is still starting ends start() with MemberStartError (run() does not hang)', async () => {
    const operator = new Operator({ logger: silent });
    operator.addController(hungMember('slow'));
    const abort = new AbortController();
    const running = operator.run(abort.signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    const err = await running;
    expect(isMemberStart(err)).toBe(true);
    expect((err as Error).message).toContain(
      'controller "slow": the operator stopped before its start() finished',
    );
  });

  it('refuses a start timeout that is not a positive number of milliseconds', () => {
    expect(DEFAULT_MEMBER_START_TIMEOUT_MS).toBeGreaterThan(120_000);
    expect(() => new Operator({ logger: silent, startTimeoutMs: 0 })).toThrow(InvalidConfigError);
    expect(() => new Operator({ logger: silent, startTimeoutMs: Number.NaN })).toThrow(
      'new Operator(options): startTimeoutMs must be a finite number of milliseconds > 0; got NaN',
    );
    const operator = new Operator({ logger: silent });
    expect(() => {
      operator.addController(hungMember('x'), { startTimeoutMs: -1 });
    }).toThrow(
      'operator.addController(controller, options): startTimeoutMs must be a finite number of milliseconds > 0; got -1',
    );
  });
});
