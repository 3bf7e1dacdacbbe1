/* eslint-disable @typescript-eslint/no-unsafe-return -- tests read untyped results */
import { describe, expect, it } from 'vitest';
import { formatApplyConflictMessage } from '../../../lib/apiserver/patch/apply-conflict-message.js';
import { fieldSetOf, fromFieldsV1, toFieldsV1 } from '../../../lib/apiserver/patch/field-set.js';
import {
  recordUpdate,
  serverSideApply,
  type ApplyOptions,
} from '../../../lib/apiserver/patch/managed-fields.js';
import { isPatchError } from '../../../lib/apiserver/patch/patch-error.js';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const T1 = '2026-11-21T10:00:00Z';
const T2 = '2026-11-21T11:00:00Z';

function opts(fieldManager: string, extra: Partial<ApplyOptions> = {}): ApplyOptions {
  return { fieldManager, force: false, now: T1, apiVersion: 'example.com/v1', ...extra };
}

function widget(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...metadata },
    spec,
  };
}

function entries(obj: Record<string, unknown>): any[] {
  return (obj.metadata as any).managedFields ?? [];
}

describe('field sets', () => {
  it('encodes keyed list items, set items and leaves in fieldsV1 form', () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: { app: 'x' }, finalizers: ['a.io/f'] },
      spec: {
        replicas: 2,
        template: { spec: { containers: [{ name: 'app', image: 'nginx' }], tolerations: [{ key: 'k' }] } },
      },
    };
    expect(toFieldsV1(fieldSetOf(dep, DEPLOYMENT))).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:finalizers': { 'v:"a.io/f"': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': {
            'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {}, 'f:image': {} } },
            'f:tolerations': {},
          },
        },
      },
    });
  });

  it('round-trips through fieldsV1', () => {
    const set = fieldSetOf({ spec: { a: 1, b: { c: [1, 2] }, d: {} } }, undefined);
    expect(fromFieldsV1(toFieldsV1(set))).toEqual(set);
  });
});

describe('serverSideApply', () => {
  it('creates the object with an Apply entry when nothing is live', () => {
    const { object, conflicts } = serverSideApply(undefined, widget({ size: 1 }), opts('alice'));
    expect(conflicts).toEqual([]);
    expect(object.spec).toEqual({ size: 1 });
    expect(entries(object)).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:size': {} } },
      },
    ]);
  });

  it('merges with fields others set and keeps them', () => {
    const live = serverSideApply(undefined, widget({ size: 1 }), opts('alice')).object;
    const { object, conflicts } = serverSideApply(live, widget({ color: 'red' }), opts('bob'));
    expect(conflicts).toEqual([]);
    expect(object.spec).toEqual({ size: 1, color: 'red' });
    expect(entries(object).map((e) => e.manager)).toEqual(['alice', 'bob']);
  });

  it('reports a conflict on a field another manager owns with a different value, then force takes it over', () => {
    const live = serverSideApply(undefined, widget({ size: 1, color: 'red' }), opts('alice')).object;
    const attempt = serverSideApply(live, widget({ size: 2 }), opts('bob'));
    expect(attempt.conflicts).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' },
    ]);
    expect(attempt.object).toEqual(live);

    const forced = serverSideApply(live, widget({ size: 2 }), opts('bob', { force: true, now: T2 }));
    expect(forced.conflicts).toEqual([]);
    expect(forced.object.spec).toEqual({ size: 2, color: 'red' });
    const [alice, bob] = entries(forced.object);
    expect(alice.fieldsV1).toEqual({ 'f:spec': { 'f:color': {} } });
    expect(bob).toMatchObject({ manager: 'bob', time: T2, fieldsV1: { 'f:spec': { 'f:size': {} } } });
  });

  it('does not conflict when the value is the same: both managers own the field', () => {
    const live = serverSideApply(undefined, widget({ size: 1 }), opts('alice')).object;
    const { object, conflicts } = serverSideApply(live, widget({ size: 1 }), opts('bob'));
    expect(conflicts).toEqual([]);
    expect(entries(object).map((e) => e.fieldsV1)).toEqual([
      { 'f:spec': { 'f:size': {} } },
      { 'f:spec': { 'f:size': {} } },
    ]);
  });

  it('names the API version of an Update manager in the conflict', () => {
    const live = recordUpdate(undefined, widget({ size: 1 }), {
      manager: 'kubectl-create',
      now: T1,
      apiVersion: 'example.com/v1',
    });
    const { conflicts } = serverSideApply(live, widget({ size: 3 }), opts('alice'));
    expect(conflicts[0]!.message).toBe('conflict with "kubectl-create" using example.com/v1');
    expect(formatApplyConflictMessage(conflicts)).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using example.com/v1: .spec.size',
    );
  });

  it('keeps the old timestamp when an apply changes nothing, so the object stays equal', () => {
    const live = serverSideApply(undefined, widget({ size: 1 }), opts('alice')).object;
    const again = serverSideApply(live, widget({ size: 1 }), opts('alice', { now: T2 })).object;
    expect(again).toEqual(live);
    const changed = serverSideApply(live, widget({ size: 2 }), opts('alice', { now: T2 })).object;
    expect(entries(changed)[0].time).toBe(T2);
  });

  it('removes fields the manager applied before and omits now', () => {
    const first = serverSideApply(
      undefined,
      widget({ size: 1, color: 'red' }, { labels: { a: '1', b: '2' } }),
      opts('alice'),
    ).object;
    const { object } = serverSideApply(
      first,
      widget({ size: 1 }, { labels: { a: '1' } }),
      opts('alice', { now: T2 }),
    );
    expect(object.spec).toEqual({ size: 1 });
    expect((object.metadata as any).labels).toEqual({ a: '1' });
    const unlabelled = serverSideApply(object, widget({ size: 1 }), opts('alice')).object;
    expect('labels' in (unlabelled.metadata as any)).toBe(false);
    expect(entries(object)).toHaveLength(1);
    expect(entries(object)[0].time).toBe(T2);
  });

  it('keeps an omitted field that another manager also owns', () => {
    const first = serverSideApply(undefined, widget({ size: 1, color: 'red' }), opts('alice')).object;
    const shared = serverSideApply(first, widget({ color: 'red' }), opts('bob')).object;
    const { object } = serverSideApply(shared, widget({ size: 1 }), opts('alice'));
    expect(object.spec).toEqual({ size: 1, color: 'red' });
  });

  it('merges containers by name for built-in kinds and removes an omitted container', () => {
    const dep = (containers: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers } } },
    });
    const options = opts('alice', { kind: DEPLOYMENT, apiVersion: 'apps/v1' });
    const first = serverSideApply(
      undefined,
      dep([
        { name: 'a', image: '1' },
        { name: 'b', image: '1' },
      ]),
      options,
    ).object;
    const withSidecar = serverSideApply(
      first,
      dep([{ name: 'c', image: '1' }]),
      opts('bob', { kind: DEPLOYMENT }),
    ).object;
    expect((withSidecar.spec as any).template.spec.containers.map((c: any) => c.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
    const { object } = serverSideApply(withSidecar, dep([{ name: 'a', image: '2' }]), options);
    expect((object.spec as any).template.spec.containers).toEqual([
      { name: 'a', image: '2' },
      { name: 'c', image: '1' },
    ]);
  });

  it('treats lists of custom resources atomically', () => {
    const live = serverSideApply(undefined, widget({ items: [1, 2] }), opts('alice')).object;
    const { object, conflicts } = serverSideApply(live, widget({ items: [3] }), opts('alice'));
    expect(conflicts).toEqual([]);
    expect(object.spec).toEqual({ items: [3] });
  });

  it('unions finalizers from different managers', () => {
    const live = serverSideApply(undefined, widget({}, { finalizers: ['a.io/x'] }), opts('alice')).object;
    const { object, conflicts } = serverSideApply(live, widget({}, { finalizers: ['b.io/y'] }), opts('bob'));
    expect(conflicts).toEqual([]);
    expect((object.metadata as any).finalizers).toEqual(['a.io/x', 'b.io/y']);
  });

  it('records the subresource', () => {
    const live = serverSideApply(undefined, { ...widget({ size: 1 }) }, opts('creator')).object;
    const result = serverSideApply(
      live,
      { ...widget({}), status: { ready: false } },
      opts('ctl', { subresource: 'status' }),
    );
    expect(result.conflicts).toEqual([]);
    expect(entries(result.object).find((e) => e.manager === 'ctl')).toMatchObject({
      manager: 'ctl',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:ready': {} } },
    });
  });

  it('gives an object without managedFields to before-first-apply first (kube’s skipNonAppliedManager)', () => {
    const live = widget({ size: 1 });
    const refused = serverSideApply(live, widget({ size: 2 }), opts('ctl'));
    expect(refused.conflicts.map((c) => [c.message, c.field])).toEqual([
      ['conflict with "before-first-apply" using example.com/v1', '.spec.size'],
    ]);
    const taken = serverSideApply(live, widget({ size: 2 }), opts('ctl', { force: true }));
    const byManager = new Map(entries(taken.object).map((e) => [e.manager, e]));
    expect(byManager.get('ctl')?.fieldsV1).toEqual({ 'f:spec': { 'f:size': {} } });
    expect(byManager.get('before-first-apply')?.fieldsV1?.['f:spec']?.['f:size']).toBeUndefined();
  });

  it('rejects an applied object that carries managedFields', () => {
    expect(() => serverSideApply(undefined, widget({}, { managedFields: [] }), opts('a'))).toThrow(
      expect.objectContaining({ code: 400 }),
    );
    try {
      serverSideApply(undefined, widget({}, { managedFields: [] }), opts('a'));
    } catch (e) {
      expect(isPatchError(e)).toBe(true);
    }
  });

  it('never mutates live or applied', () => {
    const live = serverSideApply(undefined, widget({ size: 1 }), opts('alice')).object;
    const liveCopy = structuredClone(live);
    const applied = widget({ size: 2 });
    const appliedCopy = structuredClone(applied);
    serverSideApply(live, applied, opts('bob', { force: true }));
    expect(live).toEqual(liveCopy);
    expect(applied).toEqual(appliedCopy);
  });
});

describe('recordUpdate', () => {
  const update = (manager: string, now = T1) => ({ manager, now, apiVersion: 'example.com/v1' });

  it('gives the creator every field on create, and each map it added (`.`, as structured-merge-diff)', () => {
    const object = recordUpdate(
      undefined,
      widget({ size: 1 }, { labels: { a: 'b' } }),
      update('kubectl-create'),
    );
    expect(entries(object)).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'example.com/v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
          'f:spec': { '.': {}, 'f:size': {} },
        },
      },
    ]);
  });

  it('moves changed fields to the updating manager and leaves unchanged ones', () => {
    const created = serverSideApply(undefined, widget({ size: 1, color: 'red' }), opts('alice')).object;
    const changed = structuredClone(created);
    (changed.spec as any).size = 5;
    const object = recordUpdate(created, changed, update('kubectl-edit', T2));
    const [alice, edit] = entries(object);
    expect(alice.fieldsV1).toEqual({ 'f:spec': { 'f:color': {} } });
    expect(edit).toMatchObject({
      manager: 'kubectl-edit',
      operation: 'Update',
      time: T2,
      fieldsV1: { 'f:spec': { 'f:size': {} } },
    });
    // The applier now conflicts with the editor on size.
    expect(
      serverSideApply(object, widget({ size: 1, color: 'red' }), opts('alice')).conflicts.map((c) => c.field),
    ).toEqual(['.spec.size']);
  });

  it('drops ownership of removed fields and entries left empty', () => {
    const created = recordUpdate(undefined, widget({ size: 1 }), update('a'));
    const withoutSpec = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: created.metadata };
    const object = recordUpdate(created, withoutSpec, update('b'));
    expect(entries(object)).toEqual([]);
    expect('managedFields' in (object.metadata as any)).toBe(false);
  });

  it('adds no entry for a write that changes nothing', () => {
    const created = recordUpdate(undefined, widget({ size: 1 }), update('a'));
    expect(entries(recordUpdate(created, structuredClone(created), update('b', T2)))).toEqual(
      entries(created),
    );
  });

  it('keeps the stored entries when the write sends managedFields: []', () => {
    const created = recordUpdate(undefined, widget({ size: 1 }), update('a'));
    const stripped = widget({ size: 1 }, { managedFields: [] });
    expect(entries(recordUpdate(created, stripped, update('b')))).toEqual(entries(created));
  });

  it('clears every entry when the write sends managedFields: [{}]', () => {
    const created = recordUpdate(undefined, widget({ size: 1 }), update('a'));
    const reset = widget({ size: 1 }, { managedFields: [{}] });
    expect('managedFields' in (recordUpdate(created, reset, update('b')).metadata as any)).toBe(false);
  });
});
