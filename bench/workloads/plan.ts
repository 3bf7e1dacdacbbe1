// Workload 8: `plan()` (issue 19) against one full reconcile pass over the same objects. N bench Websites,
// each owning a ConfigMap `<name>-site`, on a fresh embedded API server in its own process; two front ends of
// the same operator: a Framework (one CRUD resource: get, desired, patch, create/replace) and a Controller
// (a reconcile function applying the ConfigMap server-side, which the plan sends with dryRun=All). Per run:
// every Website needs a change (run 1: the ConfigMaps are created; later runs: every Website's content was
// edited), then
//   plan   = plan(operator) over the N Websites, operator not started (it lists them itself);
//   pass   = operator.start() until the N-th ConfigMap write is seen on a watch (list, watch, N reconciles).
// The target: plan ≤ 2 × pass.
import { performance } from 'node:perf_hooks';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import {
  clientKey,
  Controller,
  CRUDResource,
  Framework,
  isNotFound,
  ObjectClient,
  Patch,
  plan,
  ResourceSet,
  silentLogger,
  type CRUDResourceOps,
} from 'reconcilekit';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { summarise, type Summary } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { embeddedTarget, forEachConcurrent, seedWebsites, type Target } from '../lib/target.js';
import {
  dataMatches,
  desiredConfigMap,
  WEBSITE_API_VERSION,
  WEBSITE_KIND,
  WEBSITE_PLURAL,
  websitesPath,
  type SiteConfigMap,
  type Website,
} from '../lib/website.js';

/** The target: planning N objects takes at most this many times one full reconcile pass. */
const TARGET_RATIO = 2;
const WORKERS = 8;
const FIELD_MANAGER = 'bench-plan';

type Site = KubernetesObject & Website;
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

/** The CRUD resource: the ConfigMap read from the server, created or replaced when its data differs. */
function siteConfigMap(): CRUDResourceOps<Site, SiteConfigMap | undefined, SiteConfigMap> {
  const client = (ctx: Parameters<CRUDResourceOps<Site>['getDesiredState']>[0]): ObjectClient => {
    const c = ctx.get(clientKey);
    if (c === undefined) throw new Error('no client');
    return c;
  };
  return {
    name: 'site-configmap',
    async getCurrentState(ctx, site) {
      const name = desiredConfigMap(site).metadata.name;
      try {
        return await client(ctx).get<SiteConfigMap & KubernetesObject>({
          ...cmRef,
          namespace: site.metadata.namespace,
          name,
        });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    getDesiredState: (_ctx, site) => desiredConfigMap(site),
    newUpdatePatch(_ctx, site, current, desired) {
      if (desired === undefined) return undefined;
      if (current === undefined) return new Patch<SiteConfigMap>().setCreateChange(desired);
      if (dataMatches(current, site)) return undefined;
      return new Patch<SiteConfigMap>().setUpdateChange({
        ...desired,
        metadata: { ...desired.metadata, resourceVersion: current.metadata.resourceVersion },
      });
    },
    newDeletePatch: () => undefined,
    async applyCreateChange(ctx, _site, change) {
      await client(ctx).create(change);
    },
    async applyUpdateChange(ctx, _site, change) {
      await client(ctx).replace(change);
    },
    applyDeleteChange: () => undefined,
  };
}

type FrontEnd = 'Framework (CRUD)' | 'Controller (dry-run)';

function build(
  frontEnd: FrontEnd,
  kubeConfig: KubeConfig,
  namespace: string,
): Framework<Site> | Controller<Site> {
  const common = {
    name: 'bench-plan',
    kubeConfig,
    resource: { apiVersion: WEBSITE_API_VERSION, kind: WEBSITE_KIND, plural: WEBSITE_PLURAL, namespace },
    workers: WORKERS,
    finalizer: false as const,
    healthServer: false as const,
    logger: silentLogger(),
  };
  if (frontEnd === 'Framework (CRUD)') {
    return new Framework<Site>({
      ...common,
      resourceSets: [new ResourceSet<Site>({ resources: [new CRUDResource({ ops: siteConfigMap() })] })],
    });
  }
  return new Controller<Site>({
    ...common,
    reconciler: async (ctx, { object }) => {
      const cm = desiredConfigMap(object);
      await ctx.get(clientKey)?.apply(cm, {
        fieldManager: FIELD_MANAGER,
        force: true,
      });
    },
  });
}

/** Resolves once `count` ConfigMap writes (ADDED or MODIFIED) were seen since the watch opened. */
async function watchWrites(
  client: ObjectClient,
  namespace: string,
  count: number,
): Promise<{ opened: Promise<void>; done: Promise<number>; stop: () => void }> {
  const stop = new AbortController();
  const list = await client.list({ ...cmRef, namespace });
  let seen = 0;
  let resolveDone: (at: number) => void = () => undefined;
  const done = new Promise<number>((r) => (resolveDone = r));
  let resolveOpened: () => void = () => undefined;
  const opened = new Promise<void>((r) => (resolveOpened = r));
  void client
    .watch(
      { ...cmRef, namespace },
      {
        signal: stop.signal,
        resourceVersion: list.metadata.resourceVersion,
        onOpen: () => {
          resolveOpened();
        },
      },
      (type) => {
        if (type !== 'ADDED' && type !== 'MODIFIED') return;
        seen += 1;
        if (seen === count) resolveDone(performance.now());
      },
    )
    .catch(() => undefined);
  return {
    opened,
    done,
    stop: () => {
      stop.abort();
    },
  };
}

/** Edits every Website's content, so each needs its ConfigMap updated. */
async function editAll(target: Target, sites: readonly Website[], round: number): Promise<void> {
  await forEachConcurrent(sites.length, 8, async (i) => {
    const name = sites[i]?.metadata.name ?? '';
    await target.rest.request(
      'PATCH',
      `${websitesPath(target.namespace)}/${name}`,
      { spec: { content: `<h1>${name}, round ${String(round)}</h1>` } },
      { contentType: 'application/merge-patch+json' },
    );
  });
}

async function measure(
  frontEnd: FrontEnd,
  n: number,
  runs: number,
): Promise<{ planMs: Summary; passMs: Summary; changes: number[] }> {
  const target = await embeddedTarget();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(target.kubeconfigPath);
  const driver = new ObjectClient({ kubeConfig });
  const planSamples: number[] = [];
  const passSamples: number[] = [];
  const changes: number[] = [];
  try {
    const sites = await seedWebsites(target, n);
    for (let run = 0; run < runs; run++) {
      if (run > 0) await editAll(target, sites, run);
      const planned = build(frontEnd, kubeConfig, target.namespace);
      const t0 = performance.now();
      const result = await plan(planned);
      planSamples.push(performance.now() - t0);
      if (result.errors > 0) throw new Error(`plan: ${String(result.errors)} object(s) with errors`);
      changes.push(result.changes);

      const operator = build(frontEnd, kubeConfig, target.namespace);
      const writes = await watchWrites(driver, target.namespace, n);
      await writes.opened;
      const t1 = performance.now();
      await operator.start();
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => {
          reject(new Error(`pass: ${String(n)} writes not seen in 300 s`));
        }, 300_000).unref(),
      );
      const finished = await Promise.race([writes.done, timeout]);
      passSamples.push(finished - t1);
      writes.stop();
      await operator.stop();
      progress(
        `workload 8: ${frontEnd}, run ${String(run + 1)}/${String(runs)}: plan ${formatNumber(planSamples.at(-1), 0)} ms, pass ${formatNumber(passSamples.at(-1), 0)} ms`,
      );
    }
  } finally {
    driver.close();
    await target.close();
  }
  return { planMs: summarise(planSamples), passMs: summarise(passSamples), changes };
}

export async function runPlan(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.planObjects;
  const runs = Math.max(3, ctx.sizes.runs);
  const frontEnds: FrontEnd[] = ['Framework (CRUD)', 'Controller (dry-run)'];
  const rows = [];
  const targets: TargetCheck[] = [];
  const raw: Record<string, unknown> = {};
  for (const frontEnd of frontEnds) {
    progress(`workload 8: ${frontEnd}, ${String(n)} Websites, ${String(runs)} runs`);
    const m = await measure(frontEnd, n, runs);
    raw[frontEnd] = m;
    const ratio = m.planMs.median / m.passMs.median;
    rows.push({
      system: `${frontEnd}, ${formatNumber(n, 0)} objects`,
      cells: [m.planMs, m.passMs, formatRatio(m.planMs.median, m.passMs.median)],
    });
    targets.push({
      target: `${frontEnd}: planning ${formatNumber(n, 0)} objects ≤ ${String(TARGET_RATIO)}× one full reconcile pass over them`,
      actual: `${formatRatio(m.planMs.median, m.passMs.median)} (${formatNumber(m.planMs.median, 0)} vs ${formatNumber(m.passMs.median, 0)} ms, medians)`,
      met: ratio <= TARGET_RATIO,
    });
  }
  const table = markdownTable(
    [
      { heading: 'plan ms', digits: 0 },
      { heading: 'one full pass ms', digits: 0 },
      { heading: 'plan ÷ pass', digits: 2 },
    ],
    rows,
  );
  return {
    id: 8,
    title: 'plan() against one full reconcile pass',
    markdown:
      `${table}\n\nMedian (min–max) of ${String(runs)} runs on a fresh embedded API server (its own process); ` +
      `${String(WORKERS)} workers, and the plan runs ${String(WORKERS)} objects at once. Every run, every object ` +
      'needs a change (run 1 creates the ConfigMaps, later runs update them after an edit of every Website). ' +
      'plan: `plan(operator)` on an operator not started (it lists the objects; the Framework plans each CRUD ' +
      "resource and has the server dry-run the change for its diff; the Controller's writes go out with " +
      'dryRun=All, each after a GET of the object for its before). pass: `start()` until the last ConfigMap ' +
      `write is seen on a watch (initial list and watch included).\n\n${targetLines(targets)}\n`,
    targets,
    raw: { objects: n, runs, ...raw },
  };
}
