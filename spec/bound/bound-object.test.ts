import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bindObject,
  DEFAULT_INSTANCE_LABEL,
  isAlreadyOwned,
  isInvalidConfig,
  isStaleObject,
} from '../../lib/index.js';
import { GADGET, startCluster, type Cluster, type Gadget } from './support.js';

let cluster: Cluster;
let n = 0;
const name = (): string => `b${++n}`;
const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;
type ConfigMap = KubernetesObject & { data?: Record<string, string> };

beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  await cluster.close();
});

describe('bound object (seed 004 ProviderController)', () => {
  it('C12: create puts the child in the owner namespace, adds the controller ref (other refs kept) and the instance label', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'unrelated', uid: 'uid-unrelated' };
    const created = await bound.create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${g.metadata!.name!}-cm`, ownerReferences: [other], labels: { app: 'x' } },
      data: { a: '1' },
    });
    const live = await cluster.client.get<ConfigMap>({
      ...CM,
      namespace: 'default',
      name: created.metadata!.name!,
    });
    expect(live.metadata!.namespace).toBe('default');
    expect(live.metadata!.ownerReferences).toEqual([
      other,
      {
        apiVersion: g.apiVersion,
        kind: 'Gadget',
        name: g.metadata!.name,
        uid: g.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(live.metadata!.labels).toEqual({ app: 'x', [DEFAULT_INSTANCE_LABEL]: g.metadata!.name });
  });

  it('create refuses a child in another namespace, or one another object controls (typed errors, nothing created)', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const elsewhere = bound.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x1', namespace: 'kube-system' },
    });
    await expect(elsewhere).rejects.toSatisfy(isInvalidConfig);
    const controlled = bound.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'x2',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'other', controller: true }],
      },
    });
    await expect(controlled).rejects.toSatisfy(isAlreadyOwned);
    const list = await cluster.client.list({ ...CM, namespace: 'default' });
    expect(list.items.map((c) => c.metadata!.name)).not.toContain('x2');
  });

  it('apply server-side applies the adopted child: fields it drops are removed, a second manager keeps its own', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel', fieldManager: 'gadget-operator' });
    const cmName = `${g.metadata!.name!}-applied`;
    await bound.apply<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: cmName },
      data: { a: '1', b: '2' },
    });
    await cluster.client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: cmName, namespace: 'default' },
        data: { theirs: 'y' },
      },
      { fieldManager: 'someone-else' },
    );
    const after = await bound.apply<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: cmName },
      data: { a: '3' },
    });
    expect(after.data).toEqual({ a: '3', theirs: 'y' });
    expect(after.metadata!.ownerReferences?.[0]?.uid).toBe(g.metadata!.uid);
    const managers = (after.metadata!.managedFields ?? []).map((m) => m.manager).sort();
    expect(managers).toEqual(['gadget-operator', 'someone-else']);
    const conflict = await bound
      .apply<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: cmName },
        data: { theirs: 'mine' },
      })
      .catch((e: unknown) => e);
    expect((conflict as { code?: number }).code).toBe(409);
    const forced = await bound.apply<ConfigMap>(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cmName }, data: { theirs: 'mine' } },
      { force: true },
    );
    expect(forced.data).toEqual({ theirs: 'mine' });
  });

  it('delete: an object or a reference; NotFound is success', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    const child = await bound.create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${g.metadata!.name!}-d` },
    });
    await bound.delete(child);
    await bound.delete(child);
    await bound.delete({ ...CM, name: 'never-existed' });
    const err = await cluster.client
      .get({ ...CM, namespace: 'default', name: child.metadata!.name! })
      .catch((e: unknown) => e);
    expect((err as { code?: number }).code).toBe(404);
  });

  it('C13: addFinalizer/removeFinalizer are idempotent: no write (resourceVersion unchanged) when nothing changes; others kept', async () => {
    const g = await cluster.client.create<Gadget>({
      apiVersion: g0().apiVersion,
      kind: 'Gadget',
      metadata: { name: name(), namespace: 'default', finalizers: ['other.io/keep'] },
    });
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Tunnel' });
    expect(await bound.addFinalizer('example.com/x')).toBe(true);
    const rv = (await cluster.read(g.metadata!.name!)).metadata!.resourceVersion;
    expect(await bound.addFinalizer('example.com/x')).toBe(false);
    let live = await cluster.read(g.metadata!.name!);
    expect(live.metadata!.resourceVersion).toBe(rv);
    expect(live.metadata!.finalizers).toEqual(['other.io/keep', 'example.com/x']);
    expect(await bound.removeFinalizer('example.com/x')).toBe(true);
    const rv2 = (await cluster.read(g.metadata!.name!)).metadata!.resourceVersion;
    expect(await bound.removeFinalizer('example.com/x')).toBe(false);
    live = await cluster.read(g.metadata!.name!);
    expect(live.metadata!.resourceVersion).toBe(rv2);
    expect(live.metadata!.finalizers).toEqual(['other.io/keep']);
    expect(bound.object.metadata!.finalizers).toEqual(['other.io/keep']);
  });

  it('updateCondition writes only on change, moves lastTransitionTime only on a status change, and rejects a bad reason', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Ready' });
    await bound.updateCondition('False', 'Pending', 'waiting');
    const first = await cluster.read(g.metadata!.name!);
    await bound.updateCondition('False', 'Pending', 'waiting');
    expect((await cluster.read(g.metadata!.name!)).metadata!.resourceVersion).toBe(
      first.metadata!.resourceVersion,
    );
    await bound.updateCondition('False', 'StillPending', 'waiting');
    const second = await cluster.read(g.metadata!.name!);
    expect(second.status!.conditions![0]!.lastTransitionTime).toBe(
      first.status!.conditions![0]!.lastTransitionTime,
    );
    expect(second.status!.conditions![0]!.reason).toBe('StillPending');
    await expect(bound.updateCondition('True', 'R'.repeat(1025))).rejects.toThrow(
      /1025 characters\) is not a valid condition reason/,
    );
    await expect(bound.updateCondition('True', 'has space')).rejects.toSatisfy(isInvalidConfig);
    await expect(bound.updateCondition('Yes' as never, 'Ok')).rejects.toThrow(/status must be/);
    expect((await cluster.read(g.metadata!.name!)).metadata!.resourceVersion).toBe(
      second.metadata!.resourceVersion,
    );
  });

  it('updateStatus replaces the status, skips an unchanged one, and a stale handle gets StaleObjectError', async () => {
    const g = await cluster.gadget(name());
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Ready' });
    await bound.updateStatus({ phase: 'Deploying', host: 'h' });
    await bound.updateStatus({ phase: 'Healthy' });
    const live = await cluster.read(g.metadata!.name!);
    expect(live.status).toEqual({ phase: 'Healthy' });
    await bound.updateStatus({ phase: 'Healthy' });
    expect((await cluster.read(g.metadata!.name!)).metadata!.resourceVersion).toBe(
      live.metadata!.resourceVersion,
    );
    await cluster.client.patch(
      { ...GADGET, namespace: 'default', name: g.metadata!.name! },
      { spec: { v: 2 } },
      'merge',
    );
    await expect(bound.updateStatus({ phase: 'Error' })).rejects.toSatisfy(isStaleObject);
  });

  it('event always targets the bound object; get and list read anything', async () => {
    const g = await cluster.gadget(name());
    const seen: { reason: string; on: string | undefined }[] = [];
    const bound = bindObject(cluster.ctx(), g, {
      conditionType: 'Ready',
      events: (e, obj) => seen.push({ reason: e.reason, on: obj?.metadata?.uid }),
    });
    bound.event('Normal', 'Configured', 'done');
    expect(seen).toEqual([{ reason: 'Configured', on: g.metadata!.uid }]);
    expect(
      (await bound.get<Gadget>({ ...GADGET, namespace: 'default', name: g.metadata!.name! })).metadata!.uid,
    ).toBe(g.metadata!.uid);
    expect((await bound.list({ ...GADGET, namespace: 'default' })).items.length).toBeGreaterThan(0);
    expect(bound.namespace).toBe('default');
  });

  it('never mutates the object it was bound to (it may be the cache’s)', async () => {
    const g = await cluster.gadget(name());
    const snapshot = structuredClone(g);
    const bound = bindObject(cluster.ctx(), g, { conditionType: 'Ready' });
    await bound.updateCondition('True', 'Ok');
    await bound.addFinalizer('example.com/y');
    expect(g).toEqual(snapshot);
  });
});

function g0(): Gadget {
  return { apiVersion: GADGET.apiVersion, kind: 'Gadget' };
}

describe('ObjectClient.apply on a custom resource', () => {
  it('merges a list by x-kubernetes-list-map-keys: two managers applying different conditions keep both', async () => {
    const g = await cluster.gadget(name());
    const key = {
      apiVersion: GADGET.apiVersion,
      kind: 'Gadget',
      metadata: { name: g.metadata!.name!, namespace: 'default' },
    };
    const condition = (type: string) => ({
      type,
      status: 'True',
      reason: 'Ok',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    await cluster.client.apply(
      { ...key, status: { conditions: [condition('A')] } },
      { fieldManager: 'a', subresource: 'status' },
    );
    const both = await cluster.client.apply(
      { ...key, status: { conditions: [condition('B')] } },
      { fieldManager: 'b', subresource: 'status' },
    );
    expect((both as Gadget).status!.conditions!.map((c) => c.type)).toEqual(['A', 'B']);
  });

  it('removes fields the manager no longer applies (main resource)', async () => {
    const g = await cluster.gadget(name());
    const key = {
      apiVersion: GADGET.apiVersion,
      kind: 'Gadget',
      metadata: { name: g.metadata!.name!, namespace: 'default' },
    };
    await cluster.client.apply({ ...key, spec: { p: 1, q: 2 } }, { fieldManager: 'a' });
    const after = await cluster.client.apply<Gadget>({ ...key, spec: { p: 1 } }, { fieldManager: 'a' });
    expect(after.spec).toEqual({ p: 1 });
  });

  // An apply to the status subresource records its managedFields entry (subresource: status), so a
  // condition the manager stops applying is removed, as kube-apiserver does.
  it('removes a condition the manager no longer applies (status subresource)', async () => {
    const g = await cluster.gadget(name());
    const key = {
      apiVersion: GADGET.apiVersion,
      kind: 'Gadget',
      metadata: { name: g.metadata!.name!, namespace: 'default' },
    };
    const condition = (type: string) => ({
      type,
      status: 'True',
      reason: 'Ok',
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    await cluster.client.apply(
      { ...key, status: { conditions: [condition('A')] } },
      { fieldManager: 'a', subresource: 'status' },
    );
    await cluster.client.apply(
      { ...key, status: { conditions: [condition('B')] } },
      { fieldManager: 'b', subresource: 'status' },
    );
    const dropped = await cluster.client.apply<Gadget>(
      { ...key, status: {} },
      { fieldManager: 'a', subresource: 'status' },
    );
    expect(dropped.status!.conditions!.map((c) => c.type)).toEqual(['B']);
  });

  it('requires a field manager', async () => {
    await expect(
      cluster.client.apply({ ...GADGET, metadata: { name: 'x' } }, { fieldManager: '' }),
    ).rejects.toThrow(/fieldManager is required/);
  });
});
