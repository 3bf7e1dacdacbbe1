// The generated rbac.yaml of the greeting and phases examples (make manifests: `reconcilekit generate rbac`
// from each operator's configuration and its `rbac` export) against what each operator does: it runs as a
// process through a recording proxy — create, update, a failing object (a Warning Event, repeated), delete,
// SIGTERM (with the failing object still there) — and every request must be allowed, every granted verb used (or listed with the reason it
// cannot show up here). The website example has its own, longer run (website-operator/rbac.test.ts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from 'reconcilekit';
import { readManifests, startTestEnvironment, waitFor } from 'reconcilekit/testing';
import { describe, expect, it } from 'vitest';
import { checkRbac, startRecordingProxy, type Access } from '../support/rbac-recorder.js';

interface ExampleRun {
  example: string;
  main: string;
  kind: string;
  plural: string;
  spec: (text: string) => Record<string, string>;
  /** Granted but not requested in this run, with the reason. */
  notExercised: Map<string, string>;
}

const EXAMPLES: ExampleRun[] = [
  {
    example: 'greeting-operator',
    main: 'main.js',
    kind: 'Greeting',
    plural: 'greetings',
    spec: (text) => ({ message: text }),
    notExercised: new Map(),
  },
  {
    example: 'phases-operator',
    main: 'main.js',
    kind: 'Note',
    plural: 'notes',
    spec: (text) => ({ text }),
    notExercised: new Map([
      ['example.com/notes/finalizers:update', 'checked by admission (blockOwnerDeletion), never requested'],
    ]),
  },
];

describe.each(EXAMPLES)('the generated rbac.yaml of $example', (run) => {
  it('allows every request of a recorded run, and grants nothing it does not use', async () => {
    const main = `dist/examples/${run.example}/${run.main}`;
    expect(existsSync(main), `${main} is missing: run make build first`).toBe(true);
    // Plain http: the recording proxy reads each request in the clear.
    const env = await startTestEnvironment({ crds: [`examples/${run.example}/crd.yaml`], tls: false });
    const proxy = await startRecordingProxy(new URL(env.url));
    const workDir = await mkdtemp(join(tmpdir(), `${run.example}-rbac-`));
    await writeFile(join(workDir, 'kubeconfig'), env.kubeconfigYaml.replace(env.url, proxy.url));
    const operator = spawn(process.execPath, [main], {
      env: {
        ...process.env,
        KUBECONFIG: join(workDir, 'kubeconfig'),
        NOTES_DIR: workDir,
        LOG_LEVEL: 'error',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => operator.once('exit', resolve));
    const saw = (p: (a: Access) => boolean, description: string) =>
      waitFor(() => proxy.seen.some(p), { timeoutMs: 20_000, description });
    const ref = (name: string) => ({
      apiVersion: 'example.com/v1',
      kind: run.kind,
      plural: run.plural,
      namespace: 'default',
      name,
    });
    const create = (name: string, text: string) =>
      env.client.create({
        apiVersion: 'example.com/v1',
        kind: run.kind,
        metadata: { name, namespace: 'default' },
        spec: run.spec(text),
      } as KubernetesObject);
    try {
      await create('rbac', 'one');
      await saw(
        (a) => a.resource === 'configmaps' && a.verb !== 'list' && a.verb !== 'watch',
        'child written',
      );
      await env.client.patch(ref('rbac'), { spec: run.spec('two') }, 'merge');
      await waitFor(
        async () =>
          (
            await env.client.get<KubernetesObject & { data?: Record<string, string> }>({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              plural: 'configmaps',
              namespace: 'default',
              name: `rbac-${run.kind.toLowerCase()}`,
            })
          ).data?.[Object.keys(run.spec(''))[0] ?? ''] === 'two',
        { timeoutMs: 20_000, description: 'the child follows the update' },
      );
      // A failing object: its ConfigMap's name (its own name and a suffix) is too long, so every pass fails,
      // the operator posts a Warning Event and aggregates the repeats into it.
      const long = 'x'.repeat(250);
      await create(long, 'fails');
      await saw((a) => a.resource === 'events' && a.verb === 'patch', 'a repeated Warning Event, aggregated');
      await env.client.delete(ref('rbac'));
      await waitFor(
        () =>
          env.client.get(ref('rbac')).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        { timeoutMs: 20_000, description: `${run.kind} rbac deleted` },
      );
      operator.kill('SIGTERM');
      expect(await exited).toBe(0);

      const rbac = await readManifests(`examples/${run.example}/rbac.yaml`);
      const { denied, unused } = checkRbac(rbac, proxy.seen, run.notExercised);
      expect(denied).toEqual([]);
      expect(unused).toEqual([]);
    } finally {
      if (operator.exitCode === null) operator.kill('SIGKILL');
      await proxy.close();
      await env.close();
      await rm(workDir, { recursive: true, force: true });
    }
  }, 90_000);
});
