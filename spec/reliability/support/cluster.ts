import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../../lib/apiserver/index.js';
import type { FaultRule, FaultTarget } from '../../../lib/apiserver/faults.js';
import { isAlreadyExists, isNotFound } from '../../../lib/kube/api-error.js';
import { ObjectClient } from '../../../lib/kube/object-client.js';
import {
  GADGET,
  GADGET_CRD,
  GADGET_LABEL,
  childName,
  gadget,
  gadgetRef,
  renderValue,
  type Gadget,
} from './gadget.js';
import type { SideEffectLog } from './side-effect-log.js';
import { cleanUpSharedServer, REAL_BACKEND } from '../../real/real-backend.js';

/** A scratch directory for one scenario (external files, logs, data file, kubeconfig). */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `reconcilekit-${prefix}-`));
}

/** Counts of faults the server injected, by kind. */
export interface FaultCounts {
  total: number;
  byKind: Record<string, number>;
}

/** An embedded API server with the Gadget CRD, a driver client, and a fault counter. */
export interface Cluster {
  server: ApiServer;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  /** The test's own client (the driver), separate from the operator's. */
  client: ObjectClient;
  faults: FaultCounts;
  close(): Promise<void>;
}

/** Wraps `server.faults.fire` so every injected fault is counted (the scenarios report the figure). */
export function countFaults(server: ApiServer, counts: FaultCounts): void {
  const faults = server.faults;
  const fire = faults.fire.bind(faults);
  faults.fire = (target: FaultTarget, filter: (rule: FaultRule) => boolean): FaultRule[] => {
    const fired = fire(target, filter);
    for (const rule of fired) {
      const kind =
        rule.status !== undefined
          ? String(rule.status)
          : rule.expireWatch === true
            ? 'watch-expired'
            : rule.dropWatchAfterMs !== undefined
              ? 'watch-dropped'
              : 'delay';
      counts.total += 1;
      counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    }
    return fired;
  };
}

export function kubeConfigOf(server: ApiServer): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  return kubeConfig;
}

/** Starts a server (options as startApiServer's), installs the Gadget CRD and waits until it is served. */
export async function startCluster(dir: string, options: ApiServerOptions = {}): Promise<Cluster> {
  if (REAL_BACKEND) return startRealCluster(dir);
  const server = await startApiServer({ host: '127.0.0.1', port: 0, ...options });
  const faults: FaultCounts = { total: 0, byKind: {} };
  countFaults(server, faults);
  const kubeConfig = kubeConfigOf(server);
  const kubeconfigPath = join(dir, 'kubeconfig');
  server.writeKubeconfig(kubeconfigPath);
  const client = new ObjectClient({ kubeConfig, userAgent: 'reliability-driver' });
  try {
    await client.create(GADGET_CRD);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await eventually(() => client.resolve(GADGET), 5_000, 'the Gadget CRD to be served');
  return {
    server,
    kubeConfig,
    kubeconfigPath,
    client,
    faults,
    async close() {
      client.close();
      await server.close();
    },
  };
}

/**
 * The shared kube-apiserver of `make test-real` (KUBECONFIG) as a Cluster: no embedded server (a scenario
 * that needs one is not run there), no faults; `close()` leaves no Gadget, child or Lease behind.
 */
async function startRealCluster(dir: string): Promise<Cluster> {
  const kubeconfigPath = join(dir, 'kubeconfig');
  copyFileSync(process.env.KUBECONFIG ?? '', kubeconfigPath);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const client = new ObjectClient({ kubeConfig, userAgent: 'reliability-driver' });
  try {
    await client.create(GADGET_CRD);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  // Served, and past kube-apiserver's 429 "storage is (re)initializing" for a new resource.
  await eventually(
    () => client.list({ ...GADGET, namespace: 'default' }),
    15_000,
    'the Gadget CRD to be served',
  );
  const server = new Proxy({} as ApiServer, {
    get(_target, property) {
      throw new Error(`cluster.server.${String(property)}: this scenario needs the embedded API server`);
    },
  });
  return {
    server,
    kubeConfig,
    kubeconfigPath,
    client,
    faults: { total: 0, byKind: {} },
    async close() {
      await cleanUpSharedServer(client, GADGET);
      client.close();
    },
  };
}

/** Polls `check` until it returns a truthy value; throws the last error or a timeout. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs: number,
  what: string,
  intervalMs = 50,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? `: ${last.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Runs `op` until it succeeds (the driver's requests hit injected faults too); gives up after `timeoutMs`. */
export async function persist<T>(op: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
    }
  }
}

/**
 * The driver's model of what should exist: live Gadgets with the value last written, and the names it
 * deleted. Its operations retry through injected faults, so the model is what the server holds.
 */
export class Driver {
  readonly live = new Map<string, string>();
  readonly deleted = new Set<string>();
  creates = 0;
  updates = 0;
  deletes = 0;

  constructor(
    private readonly client: ObjectClient,
    readonly namespace = 'default',
  ) {}

  async create(name: string, value: string): Promise<void> {
    await persist(async () => {
      try {
        await this.client.create(gadget(name, value, this.namespace));
      } catch (err) {
        // An earlier attempt may have landed before its answer was lost; then this value is there.
        if (!isAlreadyExists(err)) throw err;
      }
    });
    this.live.set(name, value);
    this.deleted.delete(name);
    this.creates += 1;
  }

  async update(name: string, value: string): Promise<void> {
    await persist(() => this.client.patch(gadgetRef(name, this.namespace), { spec: { value } }, 'merge'));
    this.live.set(name, value);
    this.updates += 1;
  }

  async delete(name: string): Promise<void> {
    await persist(async () => {
      try {
        await this.client.delete(gadgetRef(name, this.namespace));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
    this.live.delete(name);
    this.deleted.add(name);
    this.deletes += 1;
  }

  /** A random create, update or delete (creates while few objects live). */
  async randomOp(
    prefix: string,
    counter: { next: number },
    random: () => number = Math.random,
  ): Promise<void> {
    const names = [...this.live.keys()];
    const roll = random();
    if (names.length < 5 || roll < 0.4) {
      counter.next += 1;
      await this.create(`${prefix}-${counter.next}`, `v${counter.next}`);
    } else if (roll < 0.75) {
      const name = names[Math.floor(random() * names.length)]!;
      await this.update(name, `u${Date.now() % 100_000}-${Math.floor(random() * 1000)}`);
    } else {
      await this.delete(names[Math.floor(random() * names.length)]!);
    }
  }
}

/** Where convergence stands: an empty `problems` list means everything converged. */
export interface ConvergenceReport {
  problems: string[];
  liveUids: Set<string>;
}

/**
 * Compares the cluster and the external side effect with the driver's model: every live Gadget has our
 * finalizer, its ConfigMap, its external file and a Ready status for its generation; nothing is
 * Terminating; deleted Gadgets and their children are gone; no external file is orphaned; and (with a
 * side-effect log) every Gadget that ever got an external file and is gone had its cleanup run to the end.
 */
export async function convergence(
  client: ObjectClient,
  driver: Driver,
  extDir: string,
  finalizer: string,
  log?: SideEffectLog,
): Promise<ConvergenceReport> {
  const problems: string[] = [];
  const ns = driver.namespace;
  const gadgets = (await client.list<Gadget>({ ...GADGET, namespace: ns })).items;
  const children = (
    await client.list<KubernetesObject & { data?: Record<string, string> }>(
      { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: ns },
      { labelSelector: GADGET_LABEL },
    )
  ).items;
  const childByName = new Map(children.map((c) => [c.metadata?.name ?? '', c]));
  const liveUids = new Set<string>();
  const seen = new Set<string>();
  for (const g of gadgets) {
    const name = g.metadata?.name ?? '';
    const uid = g.metadata?.uid ?? '';
    seen.add(name);
    if (g.metadata?.deletionTimestamp !== undefined) {
      problems.push(`${name}: still Terminating`);
      continue;
    }
    const want = driver.live.get(name);
    if (want === undefined) {
      problems.push(
        `${name}: exists but the driver ${driver.deleted.has(name) ? 'deleted' : 'never created'} it`,
      );
      continue;
    }
    liveUids.add(uid);
    const rendered = renderValue(name, want);
    if (g.spec?.value !== want) problems.push(`${name}: spec.value is not the last value written`);
    if (!(g.metadata?.finalizers ?? []).includes(finalizer)) problems.push(`${name}: no finalizer`);
    const child = childByName.get(childName(name));
    if (child?.data?.value !== rendered) problems.push(`${name}: ConfigMap missing or stale`);
    else if (child.metadata?.ownerReferences?.[0]?.uid !== uid)
      problems.push(`${name}: ConfigMap owner wrong`);
    const ready = g.status?.conditions?.find((c) => c.type === 'Ready');
    if (
      g.status?.observedGeneration !== g.metadata?.generation ||
      g.status?.value !== rendered ||
      ready?.status !== 'True'
    ) {
      problems.push(`${name}: status not converged`);
    }
    const file = join(extDir, uid);
    if (!existsSync(file)) problems.push(`${name}: external file missing`);
    else if (readFileSync(file, 'utf8') !== rendered)
      problems.push(`${name}: external file half-done or stale`);
  }
  for (const name of driver.live.keys()) if (!seen.has(name)) problems.push(`${name}: missing`);
  for (const name of driver.deleted) {
    if (driver.live.has(name)) continue;
    if (childByName.has(childName(name))) problems.push(`${name}: deleted but its ConfigMap is orphaned`);
  }
  for (const file of existsSync(extDir) ? readdirSync(extDir) : []) {
    if (!liveUids.has(file)) problems.push(`external file ${file} orphaned`);
  }
  if (log !== undefined) problems.push(...cleanupGaps(log, liveUids));
  return { problems, liveUids };
}

/** Uids that got an external file, are gone, and have no completed cleanup in the side-effect log. */
export function cleanupGaps(log: SideEffectLog, liveUids: Set<string>): string[] {
  const created = new Set<string>();
  const cleaned = new Set<string>();
  for (const e of log.read()) {
    if (e.op === 'create-begin') created.add(e.uid);
    if (e.op === 'delete-end') cleaned.add(e.uid);
  }
  return [...created]
    .filter((uid) => !liveUids.has(uid) && !cleaned.has(uid))
    .map((uid) => `uid ${uid}: gone without a completed cleanup`);
}

/** Makes a fresh external-side-effect directory inside `dir`. */
export function extDirIn(dir: string): string {
  const ext = join(dir, 'ext');
  mkdirSync(ext, { recursive: true });
  return ext;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
