// The real kubectl against the embedded server (or a real cluster with RECONCILEKIT_E2E=1).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, widgetCrd } from './support/fixtures.js';
import { kubectl, startTarget, uniqueName, type Target } from './support/target.js';
import { REAL_BACKEND } from '../real/real-backend.js';

// `make test-real` runs etcd + kube-apiserver only, like controller-runtime's envtest: no
// kube-controller-manager, so no garbage collector and no namespace controller. There the specs that need
// them check what kube-apiserver alone does (the deletion starts and waits on its finalizer) instead.
const NO_CONTROLLER_MANAGER = REAL_BACKEND;

const group = `${uniqueName('k').replace('-', '')}.reconcilekit.io`;
const ns = uniqueName('conf');
let target: Target;

function widget(
  name: string,
  spec: Record<string, unknown> = { size: 2 },
  metadata: Record<string, unknown> = {},
): string {
  return manifest({
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name, namespace: ns, ...metadata },
    spec,
  });
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(target, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  target = await startTarget();
  await ok(['create', 'namespace', ns]);
  await ok(['apply', '-f', '-'], manifest(widgetCrd(group)));
  await ok(['wait', '--for', 'condition=established', `crd/widgets.${group}`, '--timeout=10s']);
}, 30_000);

afterAll(async () => {
  await kubectl(target, ['delete', 'namespace', ns, '--wait=false']);
  await kubectl(target, ['delete', 'crd', `widgets.${group}`, '--wait=false']);
  await target.close();
});

describe('kubectl against the API server', () => {
  it('applies a custom resource, then reports it unchanged, then configures a change', async () => {
    expect(await ok(['apply', '-f', '-'], widget('applied'))).toContain('created');
    expect(await ok(['apply', '-f', '-'], widget('applied'))).toContain('unchanged');
    expect(await ok(['apply', '-f', '-'], widget('applied', { size: 4 }))).toContain('configured');
    const obj = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'applied', '-o', 'json']));
    expect(obj.spec.size).toBe(4);
    expect(obj.metadata.generation).toBe(2);
  });

  it('server-side applies a missing object in one request and re-applies it', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], widget('ssa', { size: 5 }))).toContain(
      'serverside-applied',
    );
    expect(await ok(['apply', '--server-side', '-f', '-'], widget('ssa', { size: 6 }))).toContain(
      'serverside-applied',
    );
    const obj = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'ssa', '-o', 'json']));
    expect(obj.spec.size).toBe(6);
  });

  it('gets a table with the printer columns and JSON with defaults applied', async () => {
    await ok(['apply', '-f', '-'], widget('table', { color: 'red' }));
    const table = await ok(['get', '-n', ns, `widgets.${group}`]);
    expect(table.split('\n')[0]).toMatch(/NAME\s+SIZE\s+AGE/);
    expect(table).toMatch(/table\s+3\s+/);
    const obj = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'table', '-o', 'json']));
    expect(obj.spec).toEqual({ color: 'red', size: 3 });
  });

  it('merge-patches with --type=merge and reports 415 for the default strategic patch on a custom resource', async () => {
    await ok(['apply', '-f', '-'], widget('patched'));
    expect(
      await ok([
        'patch',
        '-n',
        ns,
        `widgets.${group}`,
        'patched',
        '--type=merge',
        '-p',
        '{"spec":{"size":9}}',
      ]),
    ).toContain('patched');
    const r = await kubectl(target, [
      'patch',
      '-n',
      ns,
      `widgets.${group}`,
      'patched',
      '-p',
      '{"spec":{"size":1}}',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('application/strategic-merge-patch+json is not supported by');
    const obj = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'patched', '-o', 'json']));
    expect(obj.spec.size).toBe(9);
  });

  it('streams changes with get -w', async () => {
    await ok(['apply', '-f', '-'], widget('watched'));
    const child = spawn(
      'kubectl',
      [
        '--kubeconfig',
        target.kubeconfigPath,
        '--cache-dir',
        join(target.dir, 'cache'),
        'get',
        '-n',
        ns,
        `widgets.${group}`,
        'watched',
        '-w',
        '-o',
        'name',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const deadline = Date.now() + 10_000;
      while (!out.includes('watched') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await ok([
        'patch',
        '-n',
        ns,
        `widgets.${group}`,
        'watched',
        '--type=merge',
        '-p',
        '{"spec":{"size":7}}',
      ]);
      while (out.split('\n').filter((l) => l.includes('watched')).length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(
        out.split('\n').filter((l) => l.includes('widget.' + group + '/watched')).length,
      ).toBeGreaterThanOrEqual(2);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('deletes an object held by a finalizer only after the finalizer is removed', async () => {
    await ok(['apply', '-f', '-'], widget('held', { size: 2 }, { finalizers: ['example.com/hold'] }));
    await ok(['delete', '-n', ns, `widgets.${group}`, 'held', '--wait=false']);
    const marked = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'held', '-o', 'json']));
    expect(marked.metadata.deletionTimestamp).toBeDefined();
    const waiter = kubectl(target, [
      'wait',
      '--for=delete',
      '-n',
      ns,
      `widgets.${group}/held`,
      '--timeout=15s',
    ]);
    await ok([
      'patch',
      '-n',
      ns,
      `widgets.${group}`,
      'held',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    const waited = await waiter;
    expect(waited.code).toBe(0);
    const gone = await kubectl(target, ['get', '-n', ns, `widgets.${group}`, 'held']);
    expect(gone.stderr).toContain('NotFound');
  });

  it('deletes with --cascade=foreground after removing the dependents', async () => {
    await ok(['apply', '-f', '-'], widget('owner'));
    const owner = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'owner', '-o', 'json']));
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'owned',
        namespace: ns,
        ownerReferences: [
          {
            apiVersion: `${group}/v1`,
            kind: 'Widget',
            name: 'owner',
            uid: owner.metadata.uid,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { a: '1' },
    };
    await ok(['apply', '-f', '-'], manifest(cm));
    if (NO_CONTROLLER_MANAGER) {
      await ok(['delete', '-n', ns, `widgets.${group}`, 'owner', '--cascade=foreground', '--wait=false']);
      const deleting = JSON.parse(await ok(['get', '-n', ns, `widgets.${group}`, 'owner', '-o', 'json']));
      expect(deleting.metadata.deletionTimestamp).toBeDefined();
      expect(deleting.metadata.finalizers).toContain('foregroundDeletion');
      return;
    }
    await ok(['delete', '-n', ns, `widgets.${group}`, 'owner', '--cascade=foreground', '--timeout=15s']);
    expect((await kubectl(target, ['get', '-n', ns, 'configmap', 'owned'])).stderr).toContain('NotFound');
    expect((await kubectl(target, ['get', '-n', ns, `widgets.${group}`, 'owner'])).stderr).toContain(
      'NotFound',
    );
  });

  it('describes an object', async () => {
    await ok(['apply', '-f', '-'], widget('described'));
    const out = await ok(['describe', '-n', ns, `widgets.${group}`, 'described']);
    expect(out).toMatch(/Name:\s+described/);
    expect(out).toMatch(/Kind:\s+Widget/);
  });

  it('lists the custom resource in api-resources', async () => {
    const out = await ok(['api-resources', '--api-group', group]);
    expect(out).toMatch(/widgets\s+wd\s+\S+\/v1\s+true\s+Widget/);
  });

  it('works with the watch-list client (initial-events-end bookmark, no fallback)', async () => {
    const env = { KUBE_FEATURE_WatchListClient: 'true' };
    const applied = await kubectl(
      target,
      ['apply', '-f', '-'],
      widget('wl', { size: 2 }, { finalizers: ['example.com/wl'] }),
      20_000,
      env,
    );
    expect(applied.code).toBe(0);
    await ok(['delete', '-n', ns, `widgets.${group}`, 'wl', '--wait=false']);
    const waiter = kubectl(
      target,
      ['wait', '--for=delete', '-n', ns, `widgets.${group}/wl`, '--timeout=15s'],
      undefined,
      20_000,
      env,
    );
    await ok([
      'patch',
      '-n',
      ns,
      `widgets.${group}`,
      'wl',
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":null}}',
    ]);
    const waited = await waiter;
    expect(waited.code).toBe(0);
    expect(applied.stderr + waited.stderr).not.toContain('falling back');
  });

  it('creates and deletes a namespace', async () => {
    const name = uniqueName('tmp');
    await ok(['create', 'namespace', name]);
    await ok(['create', 'configmap', 'c1', '-n', name, '--from-literal=a=b']);
    await ok(['create', 'deployment', 'web', '-n', name, '--image=nginx', '--replicas=2', '--port=80']);
    const deployment = JSON.parse(await ok(['get', 'deployment', 'web', '-n', name, '-o', 'json']));
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'nginx',
      ports: [{ containerPort: 80 }],
    });
    if (NO_CONTROLLER_MANAGER) {
      await ok(['delete', 'namespace', name, '--wait=false']);
      const terminating = JSON.parse(await ok(['get', 'namespace', name, '-o', 'json']));
      expect(terminating.status.phase).toBe('Terminating');
      expect(terminating.spec.finalizers).toContain('kubernetes');
      return;
    }
    await ok(['delete', 'namespace', name, '--timeout=15s']);
    expect((await kubectl(target, ['get', 'namespace', name])).stderr).toContain('NotFound');
  });
});
