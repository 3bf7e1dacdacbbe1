// `make demo`: the Website operator on the embedded API server (or the cluster of KUBECONFIG), showing
// what it does. Run from the repository root: node dist/examples/website-operator/demo.js [--keep]
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { isAlreadyExists, loadKubeConfig, ObjectClient, sleep, type ObjectRef } from 'reconcilekit';
import { startApiServer, type ApiServer } from 'reconcilekit/apiserver';
import { applyManifests, installCrds, readManifests, waitFor } from 'reconcilekit/testing';
import { DemoDisplay } from './demo-display.js';
import { startOperatorProcess, type OperatorProcess } from './demo-operator-process.js';
import { summarise } from './demo-summary.js';
import { DemoTracker, type SiteSnapshot } from './demo-tracker.js';
import { examplePath } from './example-path.js';
import { loadWebsiteCrd } from './website-crd.js';
import { WEBSITE_API_VERSION, WEBSITE_KIND, WEBSITE_PLURAL } from './website.js';

const NAMESPACE = 'reconcilekit-demo';
const SAMPLES = ['hello', 'blog', 'guide'];
const EDITED = 'hello';
const DELETED = 'blog';
const STEP_TIMEOUT_MS = 30_000;

const { values } = parseArgs({
  options: { keep: { type: 'boolean', default: false }, 'work-dir': { type: 'string' } },
});
const keep = values.keep || process.env.KEEP === '1';
const workDir = resolve(values['work-dir'] ?? '.demo');
const display = new DemoDisplay(process.stdout);
const pause = (ms: number): Promise<void> => (process.stdout.isTTY ? sleep(ms) : Promise.resolve());
const started = Date.now();

let server: ApiServer | undefined;
let operator: OperatorProcess | undefined;
let client: ObjectClient | undefined;

async function cleanUp(): Promise<void> {
  await operator?.stop();
  client?.close();
  await server?.close();
}

function websiteRef(name: string): ObjectRef {
  return {
    apiVersion: WEBSITE_API_VERSION,
    kind: WEBSITE_KIND,
    plural: WEBSITE_PLURAL,
    namespace: NAMESPACE,
    name,
  };
}

function isReconciled(site: SiteSnapshot | undefined): boolean {
  const w = site?.website;
  return (
    w !== undefined &&
    w.ready === 'True' &&
    w.observedGeneration === w.generation &&
    Object.keys(site?.children ?? {}).length === 4
  );
}

async function run(): Promise<number> {
  rmSync(join(workDir, 'pages'), { recursive: true, force: true });
  mkdirSync(join(workDir, 'pages'), { recursive: true });
  let kubeconfigPath: string;
  let kubeConfig: KubeConfig;
  if (process.env.KUBECONFIG !== undefined && process.env.KUBECONFIG !== '') {
    kubeConfig = loadKubeConfig();
    kubeconfigPath = process.env.KUBECONFIG;
    display.step(`using the cluster of KUBECONFIG (${kubeConfig.getCurrentCluster()?.server ?? '?'})`);
  } else {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    kubeconfigPath = join(workDir, 'kubeconfig');
    server.writeKubeconfig(kubeconfigPath);
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    display.step(`started the embedded API server at ${server.url} (no cluster needed)`);
  }
  const kubectl = `kubectl --kubeconfig ${kubeconfigPath} get websites,configmaps,deployments,services -n ${NAMESPACE}`;
  const stays = server === undefined ? 'the demo objects stay' : 'it stays up';
  display.line(`    look for yourself${keep ? '' : ` (with KEEP=1 ${stays})`}: ${kubectl}`);
  client = new ObjectClient({ kubeConfig });

  display.step('installing the Website CRD');
  await installCrds(client, [loadWebsiteCrd()]);
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }

  const logFile = join(workDir, 'operator.log');
  display.step(
    `starting the operator (examples/website-operator/main.ts; its log: ${relative(process.cwd(), logFile)})`,
  );
  operator = await startOperatorProcess({
    kubeconfigPath,
    args: [
      '--namespace',
      NAMESPACE,
      '--output-dir',
      join(workDir, 'pages'),
      '--health-address',
      '127.0.0.1:0',
    ],
    logFile,
    startTimeoutMs: STEP_TIMEOUT_MS,
  });
  const tracker = new DemoTracker({ client, namespace: NAMESPACE, outputDir: join(workDir, 'pages') });
  const until = async (
    description: string,
    done: (sites: Map<string, SiteSnapshot>) => boolean,
  ): Promise<void> => {
    await waitFor(
      async () => {
        const changes = await tracker.poll();
        display.update(changes, tracker.sites());
        return done(new Map(tracker.sites().map((s) => [s.name, s])));
      },
      { description, timeoutMs: STEP_TIMEOUT_MS, intervalMs: 150 },
    );
  };

  display.step(`applying ${SAMPLES.length} sample Websites (versions 1 and 2 by label)`);
  for (const name of SAMPLES) tracker.track(name);
  const samples = (
    await Promise.all(SAMPLES.map((n) => readManifests(examplePath('samples', `${n}.yaml`))))
  ).flat();
  await applyManifests(client, samples, { namespace: NAMESPACE });
  await until('every sample reconciled', (sites) => SAMPLES.every((n) => isReconciled(sites.get(n))));
  await pause(1_000);

  display.step(`editing ${EDITED}: new title, 2 replicas`);
  await client.patch(
    websiteRef(EDITED),
    { spec: { title: 'Hello again, reconcilekit', replicas: 2 } },
    'merge',
  );
  await until(`${EDITED} updated`, (sites) => {
    const site = sites.get(EDITED);
    return isReconciled(site) && site?.children.Deployment?.detail === '2 replicas';
  });
  await pause(1_000);

  display.step(
    `deleting ${DELETED}: the operator cleans up every child and the file, then drops its finalizer`,
  );
  await client.delete(websiteRef(DELETED));
  await until(`${DELETED} cleaned up`, (sites) => {
    const site = sites.get(DELETED);
    return site?.website === undefined && Object.keys(site?.children ?? {}).length === 0;
  });
  display.freeze(tracker.sites());

  const outcome = summarise(tracker.history, tracker.sites());
  display.line('');
  for (const line of outcome.lines) display.line(line);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  display.line('');
  display.line(
    `${outcome.reconciled.length} of ${SAMPLES.length - 1} remaining Websites reconciled and Ready; ` +
      `${outcome.cleanedUp.length} deleted and fully cleaned up; ${seconds} s.`,
  );
  const ok = outcome.reconciled.length === SAMPLES.length - 1 && outcome.cleanedUp.length === 1;

  if (keep) {
    display.line('');
    display.line(`Still running (KEEP=1). Try: ${kubectl}`);
    display.line(`Pages are in ${join(workDir, 'pages', NAMESPACE)}. Press Ctrl-C to stop.`);
    const stop = new AbortController();
    process.once('SIGINT', () => {
      stop.abort();
    });
    while (!stop.signal.aborted) {
      display.update(await tracker.poll(), tracker.sites());
      await sleep(500, stop.signal).catch(() => undefined);
    }
  } else if (server === undefined) {
    display.step('removing the remaining demo Websites from the cluster');
    const remaining = SAMPLES.filter((n) => n !== DELETED);
    for (const name of remaining) await client.delete(websiteRef(name));
    await until('demo Websites removed', (sites) =>
      [...sites.values()].every((s) => s.website === undefined),
    );
    display.line(`    done; the namespace ${NAMESPACE} and the Website CRD are left in place`);
  }
  return ok ? 0 : 1;
}

process.once('SIGINT', () => {
  if (!keep) void cleanUp().then(() => process.exit(130));
});

try {
  process.exitCode = await run();
} catch (e) {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.message : String(e)}\n`);
  if (operator !== undefined) process.stderr.write(`operator log (tail):\n${operator.logTail()}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
