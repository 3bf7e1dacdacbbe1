import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInvalidConfig, isStaleObject, StatusWriter } from '../../lib/index.js';
import { GADGET, startCluster, type Cluster } from '../bound/support.js';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster.close();
});

describe('StatusWriter', () => {
  it('writes a changed status once, and nothing when unchanged (resourceVersion stays)', async () => {
    const writer = new StatusWriter({ client: cluster.client });
    const g = await cluster.gadget('s1', { size: 1 });
    const written = await writer.writeIfChanged(undefined, { ...g, status: { phase: 'running' } });
    expect(written?.status).toEqual({ phase: 'running' });
    expect(written?.spec).toEqual({ size: 1 });
    const again = await writer.writeIfChanged(
      { phase: 'running' },
      { ...written!, status: { phase: 'running', gone: undefined } },
    );
    expect(again).toBeUndefined();
    expect((await cluster.read('s1')).metadata!.resourceVersion).toBe(written!.metadata!.resourceVersion);
  });

  it('replaces the status (removed fields go) and never writes spec changes through /status', async () => {
    const writer = new StatusWriter({ client: cluster.client });
    const g = await cluster.gadget('s2', { size: 1 });
    const w1 = await writer.write({ ...g, status: { a: 1, b: 2 } });
    const w2 = await writer.writeIfChanged(w1.status, { ...w1, spec: { size: 99 }, status: { a: 1 } });
    expect(w2?.status).toEqual({ a: 1 });
    expect((await cluster.read('s2')).spec).toEqual({ size: 1 });
  });

  it('a stale resourceVersion is a StaleObjectError (409 as its cause), not a silent overwrite', async () => {
    const writer = new StatusWriter({ client: cluster.client });
    const g = await cluster.gadget('s3');
    await cluster.client.patch({ ...GADGET, namespace: 'default', name: 's3' }, { spec: { v: 2 } }, 'merge');
    const err = await writer
      .writeIfChanged(undefined, { ...g, status: { phase: 'x' } })
      .catch((e: unknown) => e);
    expect(isStaleObject(err)).toBe(true);
    expect((err as Error & { cause: { code: number } }).cause.code).toBe(409);
    expect((await cluster.read('s3')).status).toBeUndefined();
  });

  it('without a status subresource it writes the main resource (still guarded)', async () => {
    const writer = new StatusWriter({ client: cluster.client });
    const p = await cluster.plain('p1');
    const w = await writer.writeIfChanged(undefined, { ...p, status: { phase: 'ok' } });
    expect((await cluster.readPlain('p1')).status).toEqual({ phase: 'ok' });
    expect(w?.metadata!.resourceVersion).not.toBe(p.metadata!.resourceVersion);
  });

  it('bad input: no client, an object without resourceVersion', async () => {
    expect(() => new StatusWriter({} as never)).toThrow(/client is required/);
    const writer = new StatusWriter({ client: cluster.client });
    const err = await writer
      .write({ ...GADGET, metadata: { name: 'x', namespace: 'default' }, status: {} })
      .catch((e: unknown) => e);
    expect(isInvalidConfig(err)).toBe(true);
  });
});
