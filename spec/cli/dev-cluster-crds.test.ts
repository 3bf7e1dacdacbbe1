// `reconcilekit dev` against a cluster it does not own (KUBECONFIG): it creates a missing CRD, keeps one that
// already says what the file says, and never replaces a differing one unless asked (--replace-crds).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { runDevCommand } from '../../lib/cli/dev-command.js';
import { ObjectClient } from '../../lib/kube/object-client.js';

const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

function crdYaml(name: string, options: { status: boolean; field: string }): string {
  const [plural, ...group] = name.split('.');
  const kind = `${plural?.[0]?.toUpperCase() ?? ''}${plural?.slice(1, -1) ?? ''}`;
  return [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    `metadata: {name: ${name}}`,
    'spec:',
    `  group: ${group.join('.')}`,
    '  scope: Namespaced',
    `  names: {kind: ${kind}, plural: ${plural ?? ''}}`,
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    ...(options.status ? ['      subresources: {status: {}}'] : []),
    '      schema:',
    '        openAPIV3Schema:',
    '          type: object',
    `          properties: {spec: {type: object, properties: {${options.field}: {type: string}}}}`,
    '',
  ].join('\n');
}

describe('reconcilekit dev on a cluster', () => {
  let server: ApiServer;
  let client: ObjectClient;
  let dir: string;
  let entry: string;
  const saved = process.env.KUBECONFIG;

  beforeAll(async () => {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'dev-crds-'));
    const kubeconfig = join(dir, 'kubeconfig');
    server.writeKubeconfig(kubeconfig);
    process.env.KUBECONFIG = kubeconfig;
    entry = join(dir, 'main.js');
    writeFileSync(entry, 'process.exit(0);\n');
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    client = new ObjectClient({ kubeConfig: kc });
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    client.close();
    await server.close();
  });

  async function dev(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runDevCommand([entry, ...args], {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      stopSignal: new AbortController().signal,
    });
    return { code, out, err };
  }

  async function storedVersion(name: string): Promise<Record<string, unknown>> {
    const crd = (await client.get({ ...CRD_REF, name })) as {
      spec?: { versions?: Record<string, unknown>[] };
    };
    return crd.spec?.versions?.[0] ?? {};
  }

  it('creates a missing CRD, keeps a matching one, refuses a differing one and replaces it only when asked', async () => {
    const file = join(dir, 'crd.yaml');
    writeFileSync(file, crdYaml('gizmos.dev.example.com', { status: true, field: 'size' }));
    const created = await dev('--crds', file);
    expect(created).toMatchObject({ code: 0 });
    expect(created.out).toContain('CRDs: gizmos.dev.example.com created');
    expect(await storedVersion('gizmos.dev.example.com')).toHaveProperty('subresources.status');

    // The project's file without the status subresource: everything it says is already so → kept as it is
    // (replacing it would drop the subresource other users of the kind rely on).
    writeFileSync(file, crdYaml('gizmos.dev.example.com', { status: false, field: 'size' }));
    const kept = await dev('--crds', file);
    expect(kept.code).toBe(0);
    expect(kept.out).toContain('CRDs: gizmos.dev.example.com kept');
    expect(await storedVersion('gizmos.dev.example.com')).toHaveProperty('subresources.status');

    // A schema that differs: dev stops before running the operator and says where and what to do.
    writeFileSync(file, crdYaml('gizmos.dev.example.com', { status: false, field: 'colour' }));
    const refused = await dev('--crds', file);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      'CRD gizmos.dev.example.com already exists on this cluster and differs from',
    );
    expect(refused.err).toContain(
      'at spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.colour',
    );
    expect(refused.err).toContain('--replace-crds');
    expect(JSON.stringify(await storedVersion('gizmos.dev.example.com'))).toContain('"size"');

    const replaced = await dev('--crds', file, '--replace-crds');
    expect(replaced.code).toBe(0);
    expect(replaced.out).toContain('CRDs: gizmos.dev.example.com replaced');
    const now = JSON.stringify(await storedVersion('gizmos.dev.example.com'));
    expect(now).toContain('"colour"');
    expect(now).not.toContain('"size"');
  });

  it('refuses --replace-crds on the embedded server, where there is nothing to replace', async () => {
    const result = await dev('--embedded', '--replace-crds');
    expect(result.code).toBe(2);
    expect(result.err).toContain('--replace-crds is for a cluster');
  });
});
