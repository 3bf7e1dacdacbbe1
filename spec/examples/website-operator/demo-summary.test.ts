import { describe, expect, it } from 'vitest';
import { changeLine, tableLines } from '../../../examples/website-operator/demo-display.js';
import { summarise } from '../../../examples/website-operator/demo-summary.js';
import type { ObservedChange, SiteSnapshot } from '../../../examples/website-operator/demo-tracker.js';

const child = (detail = '') => ({ version: '1', detail });
const all = {
  ConfigMap: child(),
  Deployment: child('1 replica'),
  Service: child(),
  PageFile: child('10 bytes'),
};
const created = (site: string): ObservedChange[] =>
  (['ConfigMap', 'Deployment', 'Service', 'PageFile'] as const).map((kind) => ({
    site,
    kind,
    action: 'created',
    detail: '',
  }));

describe('demo summary', () => {
  it('reports reconciled, updated and fully cleaned-up Websites from what was observed', () => {
    const history: ObservedChange[] = [
      ...created('a'),
      ...created('b'),
      { site: 'a', kind: 'Deployment', action: 'updated', detail: '2 replicas' },
      { site: 'a', kind: 'Status', action: 'updated', detail: 'Ready, generation 2' },
      ...created('b').map((c) => ({ ...c, action: 'deleted' as const })),
      { site: 'b', kind: 'Website', action: 'deleted', detail: 'finalizer removed' },
    ];
    const sites: SiteSnapshot[] = [
      {
        name: 'a',
        children: all,
        website: {
          version: '2',
          generation: 2,
          observedGeneration: 2,
          ready: 'True',
          readyReason: 'Reconciled',
          finalizers: ['x'],
          deleting: false,
        },
      },
      { name: 'b', children: {} },
    ];
    const outcome = summarise(history, sites);
    expect(outcome.reconciled).toEqual(['a']);
    expect(outcome.cleanedUp).toEqual(['b']);
    expect(outcome.leftovers).toEqual([]);
    expect(outcome.lines).toContain(
      '  a  created ConfigMap, Deployment, Service, page file; updated Deployment; Ready (generation 2, set v2)',
    );
    expect(outcome.lines).toContain(
      '  b  created ConfigMap, Deployment, Service, page file; cleaned up ConfigMap, Deployment, Service, page file, finalizer',
    );
  });

  it('flags what a deletion left behind, and a Website whose status is stale', () => {
    const sites: SiteSnapshot[] = [
      { name: 'gone', children: { PageFile: child() } },
      {
        name: 'late',
        children: all,
        website: {
          version: '1',
          generation: 3,
          observedGeneration: 2,
          ready: 'True',
          readyReason: 'Reconciled',
          finalizers: [],
          deleting: false,
        },
      },
    ];
    const outcome = summarise([], sites);
    expect(outcome.leftovers).toEqual(['gone']);
    expect(outcome.reconciled).toEqual([]);
    expect(outcome.lines.join('\n')).toContain('LEFT BEHIND: page file');
    expect(tableLines(sites)[2]).toContain('Ready (stale)');
  });

  it('writes one readable line per change', () => {
    expect(changeLine({ site: 'a', kind: 'PageFile', action: 'deleted', detail: '' })).toBe(
      '    - a: page file deleted',
    );
    expect(changeLine({ site: 'a', kind: 'Deployment', action: 'updated', detail: '2 replicas' })).toBe(
      '    ~ a: Deployment updated (2 replicas)',
    );
  });
});
