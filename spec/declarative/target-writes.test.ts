import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { patcherWrite, updaterWrite } from '../../lib/declarative/target-writes.js';

const plain = { statusSubresource: false };
const withStatus = { statusSubresource: true };
const obj = (o: Record<string, unknown>): KubernetesObject => ({ apiVersion: 'v1', kind: 'ConfigMap', ...o });

describe('updaterWrite', () => {
  it('creates a missing object with the output fields', () => {
    const desired = obj({ metadata: { name: 'a', namespace: 'd', labels: { x: '1' } }, data: { k: 'v' } });
    expect(updaterWrite(undefined, desired, plain)).toEqual({
      verb: 'create',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'd', labels: { x: '1' } },
        data: { k: 'v' },
      },
    });
  });

  it('D7: replaces the data but keeps foreign labels and annotations', () => {
    const existing = obj({
      metadata: {
        name: 'a',
        namespace: 'd',
        resourceVersion: '7',
        labels: { foreign: 'yes', x: 'old' },
        annotations: { note: 'n' },
      },
      data: { k: 'old', extra: 'gone' },
    });
    const desired = obj({ metadata: { name: 'a', namespace: 'd', labels: { x: '1' } }, data: { k: 'v' } });
    const w = updaterWrite(existing, desired, plain);
    expect(w.verb).toBe('replace');
    const o = (w as unknown as { object: KubernetesObject & { data: unknown } }).object;
    expect(o.metadata?.labels).toEqual({ foreign: 'yes', x: '1' });
    expect(o.metadata?.annotations).toEqual({ note: 'n' });
    expect(o.metadata?.resourceVersion).toBe('7');
    expect(o.data).toEqual({ k: 'v' });
  });

  it('writes nothing when the object already matches (no loop on its own watch event)', () => {
    const existing = obj({ metadata: { name: 'a', labels: { foreign: 'yes', x: '1' } }, data: { k: 'v' } });
    expect(
      updaterWrite(existing, obj({ metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' } }), plain),
    ).toEqual({
      verb: 'none',
    });
  });

  it('puts status aside for kinds with a status subresource', () => {
    const existing = obj({ metadata: { name: 'a' }, spec: { n: 1 }, status: { ok: false } });
    expect(
      updaterWrite(
        existing,
        obj({ metadata: { name: 'a' }, spec: { n: 1 }, status: { ok: true } }),
        withStatus,
      ),
    ).toEqual({
      verb: 'patch',
      statusPatch: { status: { ok: true } },
    });
  });

  it('deletes when the output is gone; nothing when the object is gone too', () => {
    expect(updaterWrite(obj({ metadata: { name: 'a' } }), undefined, plain)).toEqual({ verb: 'delete' });
    expect(updaterWrite(undefined, undefined, plain)).toEqual({ verb: 'none' });
  });
});

describe('patcherWrite', () => {
  const existing = obj({ metadata: { name: 'a', labels: { keep: 'k' } }, data: { own: 'o', other: 'x' } });

  it('D7: patches exactly the emitted fields', () => {
    const desired = obj({ metadata: { name: 'a', labels: { mine: 'm' } }, data: { own: 'new' } });
    expect(patcherWrite(existing, desired, undefined, plain)).toEqual({
      verb: 'patch',
      patch: { metadata: { labels: { mine: 'm' } }, data: { own: 'new' } },
    });
  });

  it('D7: a deleted output nulls exactly the fields it had emitted', () => {
    const previous = obj({ metadata: { name: 'a', labels: { mine: 'm' } }, data: { own: 'new' } });
    const current = obj({
      metadata: { name: 'a', labels: { keep: 'k', mine: 'm' } },
      data: { own: 'new', other: 'x' },
    });
    expect(patcherWrite(current, undefined, previous, plain)).toEqual({
      verb: 'patch',
      patch: { metadata: { labels: { mine: null } }, data: { own: null } },
    });
  });

  it('a field no longer emitted is nulled, the rest set', () => {
    const previous = obj({ metadata: { name: 'a' }, data: { own: 'o', dropped: 'd' } });
    const current = obj({ metadata: { name: 'a' }, data: { own: 'o', dropped: 'd', other: 'x' } });
    expect(
      patcherWrite(current, obj({ metadata: { name: 'a' }, data: { own: 'o2' } }), previous, plain),
    ).toEqual({
      verb: 'patch',
      patch: { data: { dropped: null, own: 'o2' } },
    });
  });

  it('no patch when the fields already hold the values', () => {
    expect(
      patcherWrite(existing, obj({ metadata: { name: 'a' }, data: { own: 'o' } }), undefined, plain),
    ).toEqual({ verb: 'none' });
  });

  it('status goes to the status subresource', () => {
    const cur = obj({ metadata: { name: 'a' }, spec: { n: 1 }, status: { s: 'old' } });
    expect(
      patcherWrite(
        cur,
        obj({ metadata: { name: 'a' }, spec: { n: 2 }, status: { s: 'new' } }),
        undefined,
        withStatus,
      ),
    ).toEqual({
      verb: 'patch',
      patch: { spec: { n: 2 } },
      statusPatch: { status: { s: 'new' } },
    });
  });

  it('a missing target is an error for an update and nothing for a delete', () => {
    expect(() => patcherWrite(undefined, obj({ metadata: { name: 'a' } }), undefined, plain)).toThrow(
      /does not exist; Patcher only changes existing objects/,
    );
    expect(patcherWrite(undefined, undefined, obj({ metadata: { name: 'a' } }), plain)).toEqual({
      verb: 'none',
    });
  });
});
