/* eslint-disable @typescript-eslint/no-unsafe-return -- selectors read untyped results */
import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from '../../../lib/apiserver/patch/strategic-merge-patch.js';
import { isPatchError } from '../../../lib/apiserver/patch/patch-error.js';

const POD = { group: '', version: 'v1', kind: 'Pod' };
const SERVICE = { group: '', version: 'v1', kind: 'Service' };
const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };

const pod = {
  metadata: { name: 'p', labels: { app: 'a' }, finalizers: ['a.io/x'] },
  spec: {
    containers: [
      {
        name: 'main',
        image: 'nginx:1',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'A', value: '1' }],
      },
      { name: 'side', image: 'busybox' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    tolerations: [{ key: 'k1', operator: 'Exists' }],
  },
};

describe('applyStrategicMergePatch', () => {
  it.each([
    [
      'merges a container by name',
      { spec: { containers: [{ name: 'main', image: 'nginx:2' }] } },
      (r: any) => r.spec.containers.map((c: any) => c.image),
      ['nginx:2', 'busybox'],
    ],
    [
      'keeps unpatched fields of a merged container',
      { spec: { containers: [{ name: 'main', image: 'nginx:2' }] } },
      (r: any) => r.spec.containers[0].ports,
      [{ containerPort: 80, protocol: 'TCP' }],
    ],
    [
      // normalizeElementOrder/mergeSortedSlice: a new item goes before the server's (checked on v1.34.4).
      'puts a container with a new name before the existing ones',
      { spec: { containers: [{ name: 'new', image: 'x' }] } },
      (r: any) => r.spec.containers.map((c: any) => c.name),
      ['new', 'main', 'side'],
    ],
    [
      'deletes a list item with $patch: delete',
      { spec: { containers: [{ name: 'side', $patch: 'delete' }] } },
      (r: any) => r.spec.containers.map((c: any) => c.name),
      ['main'],
    ],
    [
      'replaces a list with $patch: replace',
      { spec: { volumes: [{ name: 'cfg', configMap: { name: 'c' } }, { $patch: 'replace' }] } },
      (r: any) => r.spec.volumes,
      [{ name: 'cfg', configMap: { name: 'c' } }],
    ],
    [
      'merges ports by containerPort',
      {
        spec: {
          containers: [
            { name: 'main', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] },
          ],
        },
      },
      (r: any) => r.spec.containers[0].ports,
      [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }],
    ],
    [
      'merges env by name',
      { spec: { containers: [{ name: 'main', env: [{ name: 'B', value: '2' }] }] } },
      (r: any) => r.spec.containers[0].env,
      [
        { name: 'B', value: '2' },
        { name: 'A', value: '1' },
      ],
    ],
    [
      'replaces tolerations atomically',
      { spec: { tolerations: [{ key: 'k2', operator: 'Exists' }] } },
      (r: any) => r.spec.tolerations,
      [{ key: 'k2', operator: 'Exists' }],
    ],
    [
      'unions finalizers',
      { metadata: { finalizers: ['b.io/y', 'a.io/x'] } },
      (r: any) => r.metadata.finalizers,
      ['b.io/y', 'a.io/x'],
    ],
    [
      'removes finalizers with $deleteFromPrimitiveList',
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } },
      (r: any) => r.metadata.finalizers,
      [],
    ],
    ['deletes a key with null', { metadata: { labels: { app: null } } }, (r: any) => r.metadata.labels, {}],
    [
      'deletes a map with $patch: delete',
      { spec: { containers: [{ name: 'main', env: null }] } },
      (r: any) => 'env' in r.spec.containers[0],
      false,
    ],
    [
      'replaces a map with $patch: replace',
      { metadata: { labels: { $patch: 'replace', only: 'this' } } },
      (r: any) => r.metadata.labels,
      { only: 'this' },
    ],
    [
      'removes a nested map with $patch: delete',
      { spec: { volumes: [{ name: 'data', emptyDir: { $patch: 'delete' } }] } },
      (r: any) => r.spec.volumes,
      [{ name: 'data' }],
    ],
    [
      'keeps only $retainKeys',
      { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/x' } }] } },
      (r: any) => r.spec.volumes,
      [{ name: 'data', hostPath: { path: '/x' } }],
    ],
    [
      'orders with $setElementOrder',
      {
        spec: {
          '$setElementOrder/containers': [{ name: 'side' }, { name: 'main' }],
          containers: [{ name: 'side', image: 'b2' }],
        },
      },
      (r: any) => r.spec.containers.map((c: any) => `${c.name}:${c.image}`),
      ['side:b2', 'main:nginx:1'],
    ],
    [
      'ignores $patch: merge',
      { $patch: 'merge', metadata: { labels: { b: 'c' } } },
      (r: any) => r.metadata.labels,
      { app: 'a', b: 'c' },
    ],
  ])('%s', (_name, patch, select, expected) => {
    expect(select(applyStrategicMergePatch(pod, patch, POD))).toEqual(expected);
  });

  it('merges service ports by port', () => {
    const svc = { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } };
    const result: any = applyStrategicMergePatch(
      svc,
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      SERVICE,
    );
    expect(result.spec.ports).toEqual([{ port: 80, targetPort: 9090 }, { port: 443 }]);
  });

  it('merges containers inside a deployment pod template', () => {
    const dep = {
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: '1' },
              { name: 'b', image: '1' },
            ],
          },
        },
      },
    };
    const result: any = applyStrategicMergePatch(
      dep,
      { spec: { template: { spec: { containers: [{ name: 'b', image: '2' }] } } } },
      DEPLOYMENT,
    );
    expect(result.spec.template.spec.containers).toEqual([
      { name: 'a', image: '1' },
      { name: 'b', image: '2' },
    ]);
  });

  it('merges ownerReferences by uid and conditions by type', () => {
    const obj = {
      metadata: { ownerReferences: [{ uid: '1', name: 'a' }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Progressing', status: 'True' },
        ],
      },
    };
    const patch = {
      metadata: { ownerReferences: [{ uid: '2', name: 'b' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const result: any = applyStrategicMergePatch(obj, patch, DEPLOYMENT);
    expect(result.metadata.ownerReferences.map((o: any) => o.uid)).toEqual(['2', '1']);
    expect(result.status.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Progressing', status: 'True' },
    ]);
  });

  it('strips directives from a replaced subtree', () => {
    const result: any = applyStrategicMergePatch(
      pod,
      { spec: { $patch: 'replace', a: { $retainKeys: ['x'], x: 1 } } },
      POD,
    );
    expect(result.spec).toEqual({ a: { x: 1 } });
  });

  it('never mutates its inputs', () => {
    const before = structuredClone(pod);
    const patch = { spec: { containers: [{ name: 'main', image: 'z' }] } };
    const result: any = applyStrategicMergePatch(pod, patch, POD);
    result.spec.containers[0].env.push({ name: 'C' });
    expect(pod).toEqual(before);
    expect(patch).toEqual({ spec: { containers: [{ name: 'main', image: 'z' }] } });
  });

  it.each([
    ['a non-object patch', [1], 400],
    ['a merge-list item without its key', { spec: { containers: [{ image: 'x' }] } }, 422],
    ['an unknown $patch directive', { spec: { $patch: 'explode' } }, 422],
  ])('rejects %s', (_name, patch, code) => {
    try {
      applyStrategicMergePatch(pod, patch, POD);
      expect.fail('expected a PatchError');
    } catch (e) {
      expect(isPatchError(e) && e.code).toBe(code);
    }
  });
});

describe('a __proto__ key in a strategic patch', () => {
  it('stays a plain field', () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":{"x":1}}}}');
    const result: any = applyStrategicMergePatch({ metadata: {} }, patch, POD);
    expect(Object.getPrototypeOf(result.metadata.labels)).toBe(Object.prototype);
    expect(JSON.stringify(result.metadata.labels)).toBe('{"__proto__":{"x":1}}');
  });
});
