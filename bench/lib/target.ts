// Where a run happens: a fresh embedded API server in its own child process, or (when KUBECONFIG is set)
// a fresh namespace on that cluster. Either way the namespace holds the Website CRD and nothing else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Child } from './child.js';
import { KubeRest, isRestStatus } from './kube-rest.js';
import {
  WEBSITE_GROUP,
  WEBSITE_PLURAL,
  newWebsite,
  websiteCrd,
  websitesPath,
  type Website,
} from './website.js';

/** One prepared place to run against. */
export interface Target {
  /** "embedded" or "cluster". */
  kind: 'embedded' | 'cluster';
  /** Kubeconfig file the systems under test load (their KUBECONFIG). */
  kubeconfigPath: string;
  /** Namespace of this run. */
  namespace: string;
  /** The driver's client. */
  rest: KubeRest;
  /** Embedded only: ms from fork to the child reporting it listens, and startApiServer()'s own ms. */
  listening?: { processMs: number; startMs: number };
  /** Embedded only: from now on every request waits this long before it is handled (0 = none). */
  setLatency?: (delayMs: number) => Promise<void>;
  /** Embedded only: CPU ms the server process has used so far. */
  serverCpuMs?: () => Promise<number>;
  /** Releases everything (stops the server or deletes the namespace). */
  close(): Promise<void>;
}

let counter = 0;

/** Starts a fresh embedded API server child and prepares a namespace and the Website CRD. */
export async function embeddedTarget(
  options: { installCrd?: boolean; profileDir?: string | undefined; dataFile?: string } = {},
): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-'));
  const kubeconfigPath = join(dir, 'kubeconfig.yaml');
  const forkedAt = performance.now();
  const execArgv =
    options.profileDir === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${options.profileDir}`,
          `--cpu-prof-name=apiserver-${Date.now()}.cpuprofile`,
        ];
  const args = options.dataFile === undefined ? [kubeconfigPath] : [kubeconfigPath, options.dataFile];
  const child = Child.fork('children/apiserver-child.js', args, { execArgv });
  const listening = await child.next('listening', 60_000);
  const processMs = performance.now() - forkedAt;
  const rest = await KubeRest.fromFile(kubeconfigPath);
  const namespace = 'bench';
  await prepareNamespace(rest, namespace, options.installCrd ?? true);
  return {
    kind: 'embedded',
    kubeconfigPath,
    namespace,
    rest,
    listening: { processMs, startMs: listening.startMs as number },
    setLatency: async (delayMs) => {
      await child.ask({ type: 'latency', delayMs }, 30_000);
    },
    serverCpuMs: async () => (await child.ask({ type: 'cpu' }, 30_000)).cpuMs as number,
    close: async () => {
      rest.close();
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Prepares a fresh namespace (and the Website CRD) on the cluster named by a kubeconfig file. */
export async function clusterTarget(
  kubeconfigPath: string,
  options: { installCrd?: boolean } = {},
): Promise<Target> {
  const rest = await KubeRest.fromFile(kubeconfigPath);
  counter += 1;
  const namespace = `rk-bench-${Date.now().toString(36)}-${counter}`;
  await prepareNamespace(rest, namespace, options.installCrd ?? true);
  return {
    kind: 'cluster',
    kubeconfigPath,
    namespace,
    rest,
    close: async () => {
      await rest.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
      rest.close();
    },
  };
}

export async function prepareNamespace(
  rest: KubeRest,
  namespace: string,
  installCrd: boolean,
): Promise<void> {
  try {
    await rest.request('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  } catch (err) {
    if (!isRestStatus(err, 409)) throw err;
  }
  if (!installCrd) return;
  try {
    await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', websiteCrd());
  } catch (err) {
    if (!isRestStatus(err, 409)) throw err;
  }
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${WEBSITE_PLURAL}.${WEBSITE_GROUP}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const crd = await rest.request('GET', crdPath);
    const established = (crd.status?.conditions ?? []).some(
      (c: any) => c.type === 'Established' && c.status === 'True',
    );
    if (established) {
      try {
        await rest.request('GET', websitesPath(namespace) + '?limit=1');
        return;
      } catch (err) {
        if (!isRestStatus(err, 404)) throw err;
      }
    }
    if (Date.now() > deadline) throw new Error('Website CRD not established within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs fn over 0..count-1 with the given concurrency. */
export async function forEachConcurrent(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next;
      next += 1;
      await fn(i);
    }
  });
  await Promise.all(workers);
}

/** Creates count Websites in the target's namespace (8 concurrent requests); returns them as created. */
export async function seedWebsites(target: Target, count: number): Promise<Website[]> {
  const created: Website[] = new Array<Website>(count);
  await forEachConcurrent(count, 8, async (i) => {
    created[i] = await target.rest.request<Website>(
      'POST',
      websitesPath(target.namespace),
      newWebsite(target.namespace, i),
    );
  });
  return created;
}
