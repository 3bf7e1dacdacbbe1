// `reconcilekit init` as a newcomer uses it: the scaffolded project (depending on the packed tarball,
// installed once by the support module) passes its own `npm test`; `reconcilekit dev` runs it on an
// embedded server where kubectl sees it work and Ctrl-C stops it with exit 0; its manifests agree with each
// other and its RBAC allows exactly what the operator requests.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseInitArgs, runInitCommand } from '../../lib/cli/init-command.js';
import { applyManifests, readManifests, startTestEnvironment, waitFor } from '../../lib/testing/index.js';
import { checkRbac, startRecordingProxy } from '../support/rbac-recorder.js';
import { consumerProject, NPM_ENV, readmeInitLines } from './support/packed.js';

const run = promisify(execFile);
let project: string;

beforeAll(async () => {
  project = await consumerProject();
}, 300_000);

/** The tests that run dist/src/main.js build it when the `npm test` one did not run first (a -t filter). */
async function ensureBuilt(): Promise<void> {
  if (!existsSync(join(project, 'dist/src/main.js')))
    await run('npm', ['run', 'build', '--silent'], { cwd: project });
}

describe('reconcilekit init', () => {
  it('scaffolds a project whose own `npm test` (the operator, deploy/ up to date) passes against the packed package', async () => {
    // README's lines ran up to `npm install` in a fresh directory (consumerProject); the last is `npm test`.
    expect(readmeInitLines().at(-1)).toBe('npm test');
    const { stdout } = await run('npm', ['test'], {
      cwd: project,
      timeout: 120_000,
      env: { ...process.env, ...NPM_ENV },
    });
    expect(stdout).toMatch(/(?:#|ℹ) pass 2\b/);
    expect(stdout).toMatch(/(?:#|ℹ) fail 0\b/);
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.scripts)).toEqual(
      expect.arrayContaining(['build', 'test', 'start', 'dev', 'generate']),
    );
  }, 150_000);

  it('scaffolds a reconcile-function (Controller) project with --controller whose own test passes', async () => {
    // Inside the installed project, so its node_modules (the packed reconcilekit) serve this one too.
    const dir = join(project, 'controller-variant');
    rmSync(dir, { recursive: true, force: true });
    const out: string[] = [];
    const code = runInitCommand([dir, '--controller', '--kind', 'Greeting'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
    });
    expect(code, out.join('')).toBe(0);
    expect(existsSync(join(dir, 'src/reconciler.ts'))).toBe(true);
    expect(existsSync(join(dir, 'src/greeting-configmap.ts'))).toBe(false);
    expect(readFileSync(join(dir, 'src/operator.ts'), 'utf8')).toContain('new Controller<Greeting>(');
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain(
      'export const controller = createOperator(',
    );
    await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const tests = join(dir, 'dist/test/operator.test.js');
    const { stdout } = await run(process.execPath, ['--test', tests], { cwd: dir, timeout: 120_000 });
    expect(stdout).toMatch(/(?:#|ℹ) pass 1\b/);
    expect(stdout).toMatch(/(?:#|ℹ) fail 0\b/);
  }, 150_000);

  it('scaffolds webhooks with --webhooks: their test passes, and `reconcilekit dev` registers them with its server', async () => {
    const dir = join(project, 'webhooks-variant');
    rmSync(dir, { recursive: true, force: true });
    const out: string[] = [];
    const code = runInitCommand([dir, '--webhooks', '--kind', 'Greeting'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
    });
    expect(code, out.join('')).toBe(0);
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain('export const operator = new Operator(');
    const deployment = (await readManifests(join(dir, 'deploy/operator.yaml')))[0] as V1Deployment;
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.template.spec?.containers[0]?.ports).toContainEqual({
      name: 'webhooks',
      containerPort: 9443,
    });
    const service = (await readManifests(join(dir, 'deploy/webhooks.yaml'))).find(
      (m) => m.kind === 'Service',
    );
    expect(service).toMatchObject({ spec: { ports: [{ port: 443, targetPort: 'webhooks' }] } });
    await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const { stdout } = await run(
      process.execPath,
      ['--test', join(dir, 'dist/test/operator.test.js'), join(dir, 'dist/test/webhooks.test.js')],
      { cwd: dir, timeout: 120_000 },
    );
    expect(stdout).toMatch(/(?:#|ℹ) pass 4\b/);
    expect(stdout).toMatch(/(?:#|ℹ) fail 0\b/);

    // `reconcilekit dev`: the operator serves its webhooks on loopback and registers them with the
    // embedded server, so kubectl's writes are defaulted and validated with nothing set up.
    const kubeconfig = join(dir, '.reconcilekit/kubeconfig');
    const kubectl = (...args: string[]) =>
      run('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, '.reconcilekit/cache'), ...args], {
        cwd: dir,
      });
    const bin = join(project, 'node_modules/reconcilekit/bin/reconcilekit.js');
    const child = spawn(process.execPath, [bin, 'dev', 'dist/src/main.js'], {
      cwd: dir,
      env: { ...process.env, KUBECONFIG: '', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => log.includes('try: '), {
        timeoutMs: 30_000,
        description: `dev ready; output: ${log}`,
      });
      const greeting = (name: string, spec: Record<string, string>) => {
        const file = join(dir, `${name}.json`);
        writeFileSync(
          file,
          JSON.stringify({
            apiVersion: 'example.com/v1',
            kind: 'Greeting',
            metadata: { name, namespace: 'default' },
            spec,
          }),
        );
        return file;
      };
      // The operator registers its webhooks once started: until then the CRD's schema refuses no message.
      await waitFor(
        () =>
          kubectl('create', '-f', greeting('defaulted', {})).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 30_000, description: `a Greeting without a message admitted; output: ${log}` },
      );
      const { stdout: message } = await kubectl(
        'get',
        'greeting',
        'defaulted',
        '-o',
        'jsonpath={.spec.message}',
      );
      expect(message).toBe('Hello!');
      // The converter is registered too: the older version reads the message as `text`.
      const { stdout: text } = await kubectl(
        'get',
        'greetings.v1alpha1.example.com',
        'defaulted',
        '-o',
        'jsonpath={.spec.text}',
      );
      expect(text).toBe('Hello!');
      const refused = await kubectl('create', '-f', greeting('too-long', { message: 'x'.repeat(201) })).then(
        () => '',
        (e: unknown) => (e as { stderr?: string }).stderr ?? '',
      );
      // kubectl prints a 422's causes (the schema allows 1,024 characters: only the validator refuses 201).
      expect(refused).toContain(
        'The Greeting "too-long" is invalid: spec.message: Too long: may not be longer than 200',
      );
      const { stderr: warned } = await kubectl('create', '-f', greeting('loud', { message: 'HELLO' }));
      expect(warned).toContain('Warning: spec.message is all capitals');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 240_000);

  it('scaffolds a sharded project with --sharded: its tests (two replicas splitting the work) pass, deploy/ runs N replicas with the shard RBAC, and the server accepts the manifests', async () => {
    const dir = join(project, 'sharded-variant');
    rmSync(dir, { recursive: true, force: true });
    const out: string[] = [];
    const code = runInitCommand([dir, '--sharded', '--replicas', '4', '--controller', '--kind', 'Greeting'], {
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
    });
    expect(code, out.join('')).toBe(0);
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain(
      'sharding: { leaseNamespace: namespace, ...(identity ? { identity } : {}) },',
    );
    const [deployment] = (await readManifests(join(dir, 'deploy/operator.yaml'))) as V1Deployment[];
    expect(deployment!.spec?.replicas).toBe(4);
    const env = deployment!.spec!.template.spec!.containers[0]!.env!;
    // The shard membership: POD_NAME is the replica's identity on the ring, POD_NAMESPACE holds the Leases.
    expect(env).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    expect(env).toContainEqual({
      name: 'POD_NAMESPACE',
      valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
    });
    const rbac = await readManifests(join(dir, 'deploy/rbac.yaml'));
    type Rules = { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] };
    const role = rbac.find((o) => o.kind === 'Role') as unknown as Rules & KubernetesObject;
    expect(role.metadata?.namespace).toBe('sharded-variant');
    expect(role.rules).toContainEqual(
      expect.objectContaining({
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      }),
    );
    const clusterRole = rbac.find((o) => o.kind === 'ClusterRole') as unknown as Rules;
    const verbsOf = (group: string, resource: string) =>
      clusterRole.rules
        .filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
        .flatMap((r) => r.verbs);
    // The shard labels: on the sharded kind and on its children (children follow their owner).
    expect(verbsOf('example.com', 'greetings')).toContain('patch');
    expect(verbsOf('', 'configmaps')).toContain('patch');
    // The chart knows the controller is sharded: replicas that each reconcile, the Lease Role kept on.
    const values = readFileSync(join(dir, 'deploy/chart/values.yaml'), 'utf8');
    expect(values).toMatch(/^replicas: 3$/m);
    expect(values).toMatch(/^leaderElection: true$/m);
    // Both of the project's own tests pass (the deploy/ staleness test included: generate agrees).
    await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const { stdout } = await run(
      process.execPath,
      ['--test', join(dir, 'dist/test/sharding.test.js'), join(dir, 'dist/test/manifests.test.js')],
      { cwd: dir, timeout: 150_000 },
    );
    expect(stdout).toMatch(/(?:#|ℹ) pass 2\b/);
    expect(stdout).toMatch(/(?:#|ℹ) fail 0\b/);
    // The server accepts them as written.
    const [crd] = await readManifests(join(dir, 'deploy/crd.yaml'));
    const [namespace] = await readManifests(join(dir, 'deploy/namespace.yaml'));
    const server = await startTestEnvironment({ crds: [crd!] });
    try {
      await applyManifests(server.client, [namespace!, ...rbac, deployment!]);
    } finally {
      await server.close();
    }
  }, 240_000);

  it('vendors the tarball it was given, so that npm install and the Dockerfile build context both find it', async () => {
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const tarball = basename(readmeInitLines()[0]?.split(' ').at(-1) ?? '');
    expect(pkg.dependencies.reconcilekit).toBe(`file:vendor/${tarball}`);
    expect(existsSync(join(project, 'vendor', tarball))).toBe(true);
    expect(readFileSync(join(project, 'package-lock.json'), 'utf8')).toContain(
      `"reconcilekit": "file:vendor/${tarball}"`,
    );
    // Every COPY from the build context names something in the project directory (the context docker
    // build . sends), and .dockerignore does not drop it; `package-lock.json*` may match nothing.
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    const ignored = readFileSync(join(project, '.dockerignore'), 'utf8').split('\n').filter(Boolean);
    const inputs = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((m) =>
      (m[1] ?? '').trim().split(/\s+/).slice(0, -1),
    );
    expect(inputs).toEqual(['package.json', 'package-lock.json*', 'vendor', 'tsconfig.json', 'src', 'test']);
    for (const input of inputs.filter((i) => !i.endsWith('*'))) {
      expect(existsSync(join(project, input)), `${input} in the build context`).toBe(true);
      expect(ignored, `${input} in .dockerignore`).not.toContain(input);
    }
    expect(dockerfile.indexOf('COPY vendor ./vendor')).toBeLessThan(
      dockerfile.indexOf('RUN if [ -f package-lock.json ]'),
    );
    // What init said it did.
    const out: string[] = [];
    const dir = join(project, 'vendored-variant');
    rmSync(dir, { recursive: true, force: true });
    const given = join(project, 'vendor', tarball);
    expect(
      runInitCommand([dir, '--reconcilekit', given], {
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
      }),
    ).toBe(0);
    expect(out.join('')).toContain(
      `copied ${given} to vendor/${tarball}: package.json depends on reconcilekit as "file:vendor/${tarball}"`,
    );
    expect(existsSync(join(dir, 'vendor', tarball))).toBe(true);
    // A tarball that is not there is refused now, not at npm install.
    const missing: string[] = [];
    expect(
      runInitCommand([join(project, 'nowhere'), '--reconcilekit', './no-such-0.1.0.tgz'], {
        stdout: (t) => missing.push(t),
        stderr: (t) => missing.push(t),
      }),
    ).toBe(2);
    expect(missing.join('')).toMatch(
      /--reconcilekit \.\/no-such-0\.1\.0\.tgz: no such file .*no-such-0\.1\.0\.tgz/,
    );
  });

  it('writes manifests that agree with each other, the Dockerfile and the code', async () => {
    const [crd] = await readManifests(join(project, 'deploy/crd.yaml'));
    const [namespace] = await readManifests(join(project, 'deploy/namespace.yaml'));
    const rbac = await readManifests(join(project, 'deploy/rbac.yaml'));
    const [deployment] = (await readManifests(join(project, 'deploy/operator.yaml'))) as V1Deployment[];
    const names = (crd as KubernetesObject & { spec: { group: string; names: { plural: string } } }).spec;
    const ns = namespace!.metadata!.name!;
    const pod = deployment!.spec!.template.spec!;
    const container = pod.containers[0]!;
    const sa = rbac.find((o) => o.kind === 'ServiceAccount')!;
    expect(deployment!.metadata!.namespace).toBe(ns);
    expect(sa.metadata).toMatchObject({ name: pod.serviceAccountName, namespace: ns });
    expect(rbac.find((o) => o.kind === 'Role')!.metadata!.namespace).toBe(ns);
    for (const binding of rbac.filter((o) => o.kind?.endsWith('Binding') === true)) {
      expect((binding as unknown as { subjects: unknown[] }).subjects).toEqual([
        { kind: 'ServiceAccount', name: sa.metadata!.name, namespace: ns },
      ]);
    }
    const clusterRole = rbac.find((o) => o.kind === 'ClusterRole') as unknown as {
      rules: { apiGroups: string[]; resources: string[] }[];
    };
    expect(clusterRole.rules).toContainEqual(
      expect.objectContaining({ apiGroups: [names.group], resources: [names.names.plural] }),
    );
    // The image the Dockerfile says to build is the one the Deployment pulls, on a supported Node LTS.
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`docker build -t ${container.image!} .`);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toContain(
      `docker build -t ${container.image!} .`,
    );
    expect(dockerfile).toMatch(/^FROM node:(22|24)-alpine/m);
    // Probes hit the port HEALTH_ADDRESS binds, on all interfaces (the kubelet probes the pod IP).
    const address = container.env!.find((e) => e.name === 'HEALTH_ADDRESS')!.value!;
    expect(address).toBe(`0.0.0.0:${String(container.ports![0]!.containerPort)}`);
    expect(container.livenessProbe!.httpGet!.port).toBe(container.ports![0]!.name);
    expect(container.readinessProbe!.httpGet!.path).toBe('/readyz');
    // The server accepts every manifest as written (schema, names, RBAC shapes).
    const env = await startTestEnvironment({ crds: [crd!] });
    try {
      await applyManifests(env.client, [namespace!, ...rbac, deployment!]);
    } finally {
      await env.close();
    }
  });

  it('runs on `reconcilekit dev`: CRD installed, kubectl sees it work, Ctrl-C exits 0, RBAC is least privilege', async () => {
    await ensureBuilt();
    const kubeconfig = join(project, '.reconcilekit/kubeconfig');
    rmSync(kubeconfig, { force: true });
    const kubectl = (...args: string[]) =>
      run(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(project, '.reconcilekit/cache'), ...args],
        {
          cwd: project,
        },
      );
    const bin = join(project, 'node_modules/reconcilekit/bin/reconcilekit.js');
    const child = spawn(process.execPath, [bin, 'dev', 'dist/src/main.js'], {
      cwd: project,
      env: { ...process.env, KUBECONFIG: '', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await waitFor(() => out.includes('try: '), {
        timeoutMs: 30_000,
        description: `dev ready; output: ${out}`,
      });
      expect(out).toMatch(
        /embedded API server on https:\/\/127\.0\.0\.1:\d+ \(kubeconfig: \.reconcilekit\/kubeconfig\)/,
      );
      expect(out).toContain('installed greetings.example.com');
      expect(out).toContain('try: kubectl --kubeconfig .reconcilekit/kubeconfig get greetings -A');
      const greeting = join(project, 'hello.json');
      writeFileSync(
        greeting,
        JSON.stringify({
          apiVersion: 'example.com/v1',
          kind: 'Greeting',
          metadata: { name: 'hello', namespace: 'default' },
          spec: { message: 'from kubectl' },
        }),
      );
      await kubectl('apply', '-f', greeting);
      const message = await waitFor(
        async () =>
          (
            await kubectl('get', 'configmap', 'hello-greeting', '-o', 'jsonpath={.data.message}').catch(
              () => ({
                stdout: '',
              }),
            )
          ).stdout || undefined,
        { timeoutMs: 60_000, description: 'ConfigMap hello-greeting' },
      );
      expect(message).toBe('from kubectl');
    } finally {
      child.kill('SIGINT'); // Ctrl-C: the CLI stops the operator with SIGTERM, then the server
    }
    expect(await exited).toBe(0);
  }, 180_000);

  it('is planned by `reconcilekit plan` as built: main.js exports the operator and starts it only as the main module', async () => {
    await ensureBuilt();
    const main = readFileSync(join(project, 'src/main.ts'), 'utf8');
    expect(main).toContain('export const framework = createOperator(');
    const [crd] = await readManifests(join(project, 'deploy/crd.yaml'));
    const env = await startTestEnvironment({ crds: [crd!] });
    const dir = mkdtempSync(join(tmpdir(), 'rk-init-plan-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, env.kubeconfigYaml);
      const ns = await env.createNamespace('plan');
      const bin = join(project, 'node_modules/reconcilekit/bin/reconcilekit.js');
      const plan = (...args: string[]) =>
        run(
          process.execPath,
          [bin, 'plan', 'dist/src/main.js', '--kubeconfig', kubeconfig, '-n', ns, ...args],
          {
            cwd: project,
            env: { ...process.env, KUBECONFIG: '', POD_NAMESPACE: '', HEALTH_ADDRESS: '' },
            timeout: 60_000,
          },
        ).then(
          ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
          (err: unknown) => err as { code: number; stdout: string; stderr: string },
        );
      const empty = await plan();
      expect(empty.stderr).toBe('');
      expect(empty.code).toBe(0);
      expect(empty.stdout).toContain('Plan: 0 change(s) over 0 object(s), 0 with errors.');
      await env.client.create({
        apiVersion: 'example.com/v1',
        kind: 'Greeting',
        metadata: { name: 'hello', namespace: ns },
        spec: { message: 'planned' },
      } as KubernetesObject);
      const planned = await plan('-o', 'diff');
      expect(planned.stderr).toBe('');
      expect(planned.code).toBe(2);
      expect(planned.stdout).toContain(`# ${ns}/hello`);
      expect(planned.stdout).toContain('+  message: planned');
      expect(planned.stdout).toContain('Plan: 1 change(s) over 1 object(s), 0 with errors.');
      // Imported, not run: nothing was reconciled (no finalizer, no ConfigMap).
      const configMaps = await env.client.list({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        plural: 'configmaps',
        namespace: ns,
      });
      expect(configMaps.items.filter((c) => c.metadata?.name === 'hello-greeting')).toEqual([]);
      const hello = await env.client.get({
        apiVersion: 'example.com/v1',
        kind: 'Greeting',
        plural: 'greetings',
        namespace: ns,
        name: 'hello',
      });
      expect(hello.metadata?.finalizers ?? []).toEqual([]);
    } finally {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('grants in deploy/rbac.yaml exactly the requests the operator makes (as in the pod: leader election on)', async () => {
    await ensureBuilt();
    const [crd] = await readManifests(join(project, 'deploy/crd.yaml'));
    // Plain HTTP: the recording proxy forwards HTTP (the embedded test server defaults to TLS).
    const env = await startTestEnvironment({ crds: [crd!], tls: false });
    const proxy = await startRecordingProxy(new URL(env.url));
    const dir = mkdtempSync(join(tmpdir(), 'rk-init-rbac-'));
    try {
      writeFileSync(join(dir, 'kubeconfig'), env.kubeconfigYaml.replace(env.url, proxy.url));
      await env.client.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'greeting-operator' },
      });
      const operator = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: project,
        env: {
          ...process.env,
          KUBECONFIG: join(dir, 'kubeconfig'),
          LOG_LEVEL: 'error',
          POD_NAMESPACE: 'greeting-operator',
          POD_NAME: 'greeting-operator-0',
          HEALTH_ADDRESS: '127.0.0.1:0',
        },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => operator.on('exit', resolve));
      const ref = {
        apiVersion: 'example.com/v1',
        kind: 'Greeting',
        plural: 'greetings',
        namespace: 'default',
      };
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };
      await env.client.create({
        ...ref,
        metadata: { name: 'a', namespace: 'default' },
        spec: { message: 'one' },
      });
      await waitFor(() => env.client.get({ ...configMap, name: 'a-greeting' }), { timeoutMs: 60_000 });
      await env.client.patch({ ...ref, name: 'a' }, { spec: { message: 'two' } }, 'merge');
      await waitFor(() => proxy.seen.some((a) => a.resource === 'configmaps' && a.verb === 'update'), {
        timeoutMs: 60_000,
      });
      // A Greeting whose ConfigMap name is too long fails: a Warning Event, aggregated on repeats, and Ready=False.
      await env.client.create({
        ...ref,
        metadata: { name: 'x'.repeat(250), namespace: 'default' },
        spec: { message: 'm' },
      });
      await waitFor(() => proxy.seen.some((a) => a.resource === 'events' && a.verb === 'patch'), {
        timeoutMs: 60_000,
      });
      await waitFor(() => proxy.seen.some((a) => a.resource === 'greetings/status' && a.verb === 'patch'), {
        timeoutMs: 60_000,
      });
      await env.client.delete({ ...ref, name: 'x'.repeat(250) });
      await env.client.delete({ ...ref, name: 'a' });
      await waitFor(() => proxy.seen.some((a) => a.resource === 'configmaps' && a.verb === 'delete'), {
        timeoutMs: 60_000,
      });
      operator.kill('SIGTERM');
      expect(await exited).toBe(0);
      const { denied, unused } = checkRbac(
        await readManifests(join(project, 'deploy/rbac.yaml')),
        proxy.seen,
      );
      expect(denied).toEqual([]);
      expect(unused).toEqual([]);
    } finally {
      await proxy.close();
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('reconcilekit init: bad input says what to pass', () => {
  it.each([
    [
      ['--kind', 'memcached', 'x'],
      /--kind "memcached" must be UpperCamelCase letters and digits, e.g. --kind Memcached/,
    ],
    [['--group', 'example', 'x'], /--group "example" must be a lower-case DNS name with at least one dot/],
    [['--api-version', '1', 'x'], /--api-version "1" must look like v1, v1beta1 or v2alpha1/],
    [
      ['My_Operator'],
      /project name "My_Operator" is not a valid Kubernetes name: .* e\.g\. --name my-operator/,
    ],
    [[], /which directory\? e\.g\. reconcilekit init my-operator/],
    [['x', '--colour', 'red'], /unknown flag "--colour"/],
    [['x', '--replicas', '3'], /--replicas sets the replicas of a sharded Deployment: add --sharded/],
    [['x', '--sharded', '--replicas', '0'], /--replicas "0" must be a whole number from 1 to 100/],
    [['x', '--sharded', '--webhooks'], /--sharded and --webhooks are not scaffolded together yet/],
  ])('init %j', (args, message) => {
    expect(() => parseInitArgs(args, '/tmp')).toThrow(message);
  });

  it('refuses a directory that is not empty, with exit code 2 and the way out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rk-init-full-'));
    writeFileSync(join(dir, 'keep.txt'), 'mine');
    let err = '';
    try {
      const code = runInitCommand([dir, '--name', 'mine'], {
        stdout: () => undefined,
        stderr: (t) => (err += t),
      });
      expect(code).toBe(2);
      expect(err).toBe(
        `reconcilekit init: ${dir} is not empty: choose a new directory, or pass --force to overwrite\n`,
      );
      expect(readFileSync(join(dir, 'keep.txt'), 'utf8')).toBe('mine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
