import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  bindObject,
  ConditionLockedError,
  DEFAULT_GUARD_LOCK_TTL_MS,
  isConditionLocked,
  isInvalidConfig,
  isStaleObject,
  MAX_CONDITION_MESSAGE_LENGTH,
  type RecordedEvent,
} from '../../lib/index.js';
import { GADGET, STRICT, eventually, shown, startCluster, type Cluster, type Gadget } from './support.js';

let cluster: Cluster;
let n = 0;
const name = (): string => `g${++n}`;

beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster.close();
});
afterEach(() => {
  vi.useRealTimers();
});

async function lockedGadget(lockedAt: string): Promise<Gadget> {
  const g = await cluster.gadget(name());
  return cluster.client.replaceStatus<Gadget>({
    ...g,
    status: {
      conditions: [
        {
          type: 'Tunnel',
          status: 'Unknown',
          reason: 'Locked',
          message: 'Creating tunnel',
          lastTransitionTime: lockedAt,
        },
      ],
    },
  });
}

describe('guard (seed 004 Guard)', () => {
  it('C8: the lock (Unknown/Locked, message = reason) is visible to a watcher before the side effect, then the task result', async () => {
    const g = await cluster.gadget(name());
    const seen: string[] = [];
    const stop = new AbortController();
    const watching = cluster.client.watch(
      { ...GADGET, namespace: 'default' },
      { signal: stop.signal, resourceVersion: g.metadata!.resourceVersion },
      (type, obj) => {
        if (type !== 'MODIFIED' || obj.metadata?.name !== g.metadata!.name) return;
        const c = (obj as Gadget).status?.conditions?.find((x) => x.type === 'Tunnel');
        if (c !== undefined) seen.push(`${c.status}/${c.reason}/${c.message}`);
      },
    );
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    let sideEffectSaw: string[] = [];
    await bound.guard('Configuring', async () => {
      await eventually(() => seen.length > 0, 5_000, 'the lock event');
      sideEffectSaw = [...seen];
      return { status: 'True', reason: 'Created', message: 'tunnel t-1' };
    });
    await eventually(() => seen.length >= 2, 5_000, 'the result event');
    stop.abort();
    await watching;
    expect(sideEffectSaw).toEqual(['Unknown/Locked/Configuring']);
    expect(seen).toEqual(['Unknown/Locked/Configuring', 'True/Created/tunnel t-1']);
    expect(bound.condition()).toMatchObject({ status: 'True', reason: 'Created', observedGeneration: 1 });
    expect(bound.object.metadata!.resourceVersion).toBe(
      (await cluster.read(g.metadata!.name!)).metadata!.resourceVersion,
    );
  });

  it('C9: a failing task leaves False/Error with its message, and guard rejects with that very error', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const quota = new Error('quota');
    await expect(bound.guard('Creating', () => Promise.reject(quota))).rejects.toBe(quota);
    const live = await cluster.read(g.metadata!.name!);
    expect(live.status!.conditions![0]).toMatchObject({
      type: 'Tunnel',
      status: 'False',
      reason: 'Error',
      message: 'quota',
    });
  });

  it('C10: a stale object never reaches the task: StaleObjectError (409 as cause), nothing written', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    await cluster.client.patch(
      { ...GADGET, namespace: 'default', name: g.metadata!.name! },
      { spec: { size: 2 } },
      'merge',
    );
    const task = vi.fn(() => ({ status: 'True' as const, reason: 'Created' }));
    const err = await bound.guard('Creating', task).catch((e: unknown) => e);
    expect(isStaleObject(err)).toBe(true);
    expect((err as { retryAfterMs: number }).retryAfterMs).toBe(1_000);
    expect(task).not.toHaveBeenCalled();
    expect(shown(await cluster.read(g.metadata!.name!), 'Tunnel')).toBeUndefined();
  });

  it('C11: a fresh lock refuses with ConditionLockedError (task not run, retry ≤ 1 s)', async () => {
    const g = await lockedGadget(new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const task = vi.fn(() => ({ status: 'True' as const, reason: 'Created' }));
    const err = await bound.guard('Creating', task).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConditionLockedError);
    expect(isConditionLocked(err)).toBe(true);
    expect((err as ConditionLockedError).retryAfterMs).toBeLessThanOrEqual(1_000);
    expect((err as ConditionLockedError).message).toMatch(/Tunnel is locked since .* by 'Creating tunnel'/);
    expect(task).not.toHaveBeenCalled();
  });

  it('C11: a lock older than the TTL (fake clock, +11 min) is taken over with a Warning Event LockExpired', async () => {
    const lockedAt = new Date();
    const g = await lockedGadget(lockedAt.toISOString().replace(/\.\d+Z$/, 'Z'));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(lockedAt.getTime() + DEFAULT_GUARD_LOCK_TTL_MS + 60_000);
    const events: RecordedEvent[] = [];
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel', events: (e) => events.push(e) });
    const task = vi.fn(() => ({ status: 'True' as const, reason: 'Created' }));
    await bound.guard('Creating', task);
    expect(task).toHaveBeenCalledOnce();
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'LockExpired' })]);
    expect(events[0]!.message).toContain("('Creating tunnel')");
    expect(shown(await cluster.read(g.metadata!.name!), 'Tunnel')).toBe('True/Created');
  });

  it('a conflict after the lock (someone wrote the object while the task ran) does not lose the result', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    await bound.guard('Creating', async () => {
      await cluster.client.patch(
        { ...GADGET, namespace: 'default', name: g.metadata!.name! },
        { spec: { touched: true } },
        'merge',
      );
      return { status: 'True', reason: 'Created' };
    });
    const live = await cluster.read(g.metadata!.name!);
    expect(shown(live, 'Tunnel')).toBe('True/Created');
    expect(live.spec).toEqual({ touched: true });
  });

  it('a task throwing a non-Error is rejected as an Error naming it, and the lock is released', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const err = await bound
      .guard('Creating', () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the point of the test
        throw 'boom';
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("guarded task 'Creating' threw a non-Error value: boom");
    expect((err as Error).cause).toBe('boom');
    expect(shown(await cluster.read(g.metadata!.name!), 'Tunnel')).toBe('False/Error');
  });

  it('a task returning nothing is a typed error (InvalidConfigError), and the lock is released', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const err = await bound.guard('Creating', (() => undefined) as never).catch((e: unknown) => e);
    expect(isInvalidConfig(err)).toBe(true);
    expect((err as Error).message).toMatch(/must resolve to \{ status.*did it forget to return/);
    const live = await cluster.read(g.metadata!.name!);
    expect(shown(live, 'Tunnel')).toBe('False/Error');
  });

  it('an invalid or 2000-character reason from the task is written in a valid bounded form (the CRD enforces the limits)', async () => {
    const g = await cluster.plain(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    await bound.guard('Creating', () => ({ status: 'True', reason: 'tunnel created ok' }));
    expect(shown(await cluster.readPlain(g.metadata!.name!), 'Tunnel')).toBe('True/TunnelCreatedOk');
    await bound.guard('Again', () => ({ status: 'False', reason: 'R'.repeat(2000), message: 'm' }));
    const c = (await cluster.readPlain(g.metadata!.name!)).status!.conditions![0]!;
    expect(c.reason).toHaveLength(1024);
    expect(c.status).toBe('False');
  });

  it('an error message longer than the API limit is cut so the release write still succeeds', async () => {
    const g = await cluster.plain(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const long = new Error('x'.repeat(40_000));
    await expect(bound.guard('Creating', () => Promise.reject(long))).rejects.toBe(long);
    const c = (await cluster.readPlain(g.metadata!.name!)).status!.conditions![0]!;
    expect(c.reason).toBe('Error');
    expect(c.message.length).toBeLessThanOrEqual(MAX_CONDITION_MESSAGE_LENGTH);
    expect(c.message.endsWith('(truncated)')).toBe(true);
  });

  it('a result the server refuses (422) still releases the lock: False/Error naming the refusal, guard rejects with the 422', async () => {
    const strict = await cluster.client.create<Gadget>({
      apiVersion: STRICT.apiVersion,
      kind: STRICT.kind,
      metadata: { name: name(), namespace: 'default' },
    });
    const bound = bindObject(cluster.ctx(), strict, { conditionType: 'Tunnel' });
    const err = await bound
      .guard('Creating', () => ({ status: 'True', reason: 'Other' }))
      .catch((e: unknown) => e);
    expect((err as { code?: number }).code).toBe(422);
    const live = await cluster.client.get<Gadget>({
      ...STRICT,
      namespace: 'default',
      name: strict.metadata!.name!,
    });
    const c = live.status!.conditions![0]!;
    expect(`${c.status}/${c.reason}`).toBe('False/Error');
    expect(c.message).toMatch(/^the guard could not record its result: .*422/);
  });

  it('keeps the other conditions and status fields when locking and releasing', async () => {
    const g = await cluster.gadget(name());
    const withOther = await cluster.client.replaceStatus<Gadget>({
      ...g,
      status: {
        phase: 'Deploying',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'Pending',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    const bound = bindObject(cluster.ctx(), withOther, { conditionType: 'Tunnel' });
    await bound.guard('Creating', () => ({ status: 'True', reason: 'Created' }));
    const live = await cluster.read(g.metadata!.name!);
    expect(live.status!.phase).toBe('Deploying');
    expect(live.status!.conditions!.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Ready=False/Pending',
      'Tunnel=True/Created',
    ]);
  });

  it('bad input: invalid condition type, empty reason, non-function task', async () => {
    const g = await cluster.gadget(name());
    for (const type of ['', 'has space', 'Ready!', 'a'.repeat(64), 'UPPER.example.com/Ready']) {
      expect(() => bindObject(cluster.ctx(), g, { conditionType: type })).toThrow(
        /not a valid condition type|non-empty/,
      );
    }
    const bound = bindObject(cluster.ctx(), g as KubernetesObject, { conditionType: 'example.com/Synced' });
    await expect(bound.guard('', () => ({ status: 'True', reason: 'Ok' }))).rejects.toThrow(
      /reason must be a non-empty string/,
    );
    await expect(bound.guard('x', 'nope' as never)).rejects.toThrow(/task must be a function/);
    expect(shown(await cluster.read(g.metadata!.name!), 'example.com/Synced')).toBeUndefined();
  });
});
