// The controllers only wake up for events that can matter to them: ordinary writes cost nothing.
import { describe, expect, it } from 'vitest';
import { BackgroundControllers } from '../../lib/apiserver/background-controllers.js';
import type { ApiServerCore } from '../../lib/apiserver/core.js';
import { Registry } from '../../lib/apiserver/registry.js';
import type { StoreEvent } from '../../lib/apiserver/store.js';

function controllers(settings: Partial<ApiServerCore['settings']> = {}): BackgroundControllers {
  const core = { registry: new Registry(), settings } as unknown as ApiServerCore;
  return new BackgroundControllers(core);
}

const owner = [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'owner-uid' }];

function event(
  type: StoreEvent['type'],
  metadata: Record<string, unknown>,
  previous?: Record<string, unknown>,
): StoreEvent {
  const e: StoreEvent = {
    typeKey: '/configmaps',
    type,
    object: { metadata: { name: 'x', namespace: 'default', uid: 'u1', ...metadata } },
    rv: 1,
  };
  if (previous) e.previous = { metadata: { name: 'x', namespace: 'default', uid: 'u1', ...previous } };
  return e;
}

describe('background controllers', () => {
  it('ignore plain creates and updates that leave ownerReferences unchanged', () => {
    const c = controllers();
    expect(c.observe(event('ADDED', {}))).toBe(false);
    expect(c.observe(event('MODIFIED', { labels: { a: 'b' } }, {}))).toBe(false);
    expect(
      c.observe(
        event('MODIFIED', { ownerReferences: owner, labels: { a: 'c' } }, { ownerReferences: owner }),
      ),
    ).toBe(false);
    expect(c.pending).toBe(false);
  });

  it('queue work for new ownerReferences, deletions and Foreground/Orphan marking', () => {
    expect(controllers().observe(event('ADDED', { ownerReferences: owner }))).toBe(true);
    expect(controllers().observe(event('MODIFIED', { ownerReferences: owner }, {}))).toBe(true);
    expect(controllers().observe(event('DELETED', {}))).toBe(true);
    const marked = event(
      'MODIFIED',
      { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] },
      {},
    );
    const c = controllers();
    expect(c.observe(marked)).toBe(true);
    expect(c.pending).toBe(true);
  });

  it('do not wake for a marked object held only by ordinary finalizers', () => {
    expect(
      controllers().observe(
        event('MODIFIED', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/f'] }, {}),
      ),
    ).toBe(false);
  });

  it('queue namespace defaults and Deployment status only when those stand-ins are on', () => {
    const namespace: StoreEvent = {
      typeKey: '/namespaces',
      type: 'ADDED',
      object: { metadata: { name: 'n', uid: 'n1' } },
      rv: 1,
    };
    const deployment: StoreEvent = {
      typeKey: 'apps/deployments',
      type: 'ADDED',
      object: { metadata: { name: 'd', namespace: 'n', uid: 'd1', generation: 1 } },
      rv: 2,
    };
    const off = controllers();
    expect(off.observe(namespace)).toBe(false);
    expect(off.observe(deployment)).toBe(false);
    const on = controllers({ namespaceDefaults: { caPem: '' }, deploymentStatus: true });
    expect(on.observe(namespace)).toBe(true);
    expect(on.observe(deployment)).toBe(true);
    // A Deployment whose generation is observed needs nothing.
    const observed = { ...deployment, object: { ...deployment.object, status: { observedGeneration: 1 } } };
    expect(controllers({ deploymentStatus: true }).observe(observed)).toBe(false);
  });
});
