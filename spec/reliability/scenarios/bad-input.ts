import type { CoreV1Event } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { silentLogger } from '../../../lib/observability/logger-silent.js';
import { createGadgetOperator, GADGET_OPERATOR_NAME } from '../fixtures/gadget-operator.js';
import { GadgetTracker } from '../fixtures/gadget-resources.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
} from '../support/cluster.js';
import { GADGET, rawGadget, type Gadget, type GadgetSpec } from '../support/gadget.js';

/** One kind of bad input, the object that carries it, and the Event reason expected for it. */
export interface BadCase {
  name: string;
  spec: GadgetSpec;
  reason: string;
}

/** A Gadget name that is valid itself but makes every child name too long (253 characters at most). */
export const LONG_NAME = `long-${'n'.repeat(240)}`;

export const BAD_CASES: BadCase[] = [
  { name: 'bad-type', spec: { value: 42 }, reason: 'InvalidSpec' },
  { name: 'bad-missing', spec: {}, reason: 'InvalidSpec' },
  { name: 'bad-huge', spec: { value: 'x'.repeat(200 * 1024) }, reason: 'InvalidSpec' },
  { name: LONG_NAME, spec: { value: 'fine' }, reason: 'Invalid' },
  { name: 'bad-labels', spec: { value: 'fine', labels: { 'not a valid key!': 'x' } }, reason: 'Invalid' },
  { name: 'bad-throw', spec: { value: 'fine', mode: 'throw' }, reason: 'ReconcileError' },
  { name: 'bad-hang', spec: { value: 'fine', mode: 'hang' }, reason: 'ReconcileTimeout' },
  {
    name: 'bad-hang-hard',
    spec: { value: 'fine', mode: 'hang-ignoring-signal' },
    reason: 'ReconcileTimeout',
  },
];

export interface BadInputOptions {
  /** Good Gadgets created beside the bad ones (and as many again after them). */
  good: number;
  /** How long the bad ones are left failing before the checks. */
  failForMs: number;
  /** Per-reconcile timeout of the operator. */
  reconcileTimeoutMs: number;
}

/** Per bad case: what the cluster and the operator showed. */
export interface BadCaseResult {
  name: string;
  /** Reasons of the Warning Events on the object. */
  warningReasons: string[];
  /** Total count of those Events (aggregated repeats). */
  warningCount: number;
  /** Reconcile passes the operator made. */
  attempts: number;
  /** Hanging passes aborted through the context signal. */
  abortedBySignal: number;
  /** Conditions with status False on the object. */
  errorConditions: string[];
}

export interface BadInputFigures {
  cases: BadCaseResult[];
  /** Problems of the good Gadgets (empty when they all converged). */
  goodProblems: string[];
  /** Whether the framework still reported ready at the end. */
  ready: boolean;
  /** The good Gadgets converged after the bad ones were deleted, and the bad ones' deletions finished. */
  cleanupProblems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Scenario 4: bad input beside good input. Every bad object must fail alone — a Warning Event, an error
 * condition, backoff — while the good ones converge and the operator keeps running; deleting the bad
 * ones must still work.
 */
export async function runBadInput(o: BadInputOptions): Promise<BadInputFigures> {
  const dir = scratchDir('bad-input');
  const extDir = extDirIn(dir);
  const cluster = await startCluster(dir);
  const tracker = new GadgetTracker();
  const framework = createGadgetOperator({
    kubeConfig: cluster.kubeConfig,
    logger: silentLogger(),
    registry: new Registry(),
    extDir,
    tracker,
    workers: 2,
    reconcileTimeoutMs: o.reconcileTimeoutMs,
  });
  const driver = new Driver(cluster.client);
  const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
  try {
    await framework.start();
    for (const bad of BAD_CASES) {
      await cluster.client.create(rawGadget(bad.name, bad.spec));
    }
    for (let i = 0; i < o.good; i++) await driver.create(`good-${i}`, `g${i}`);
    await sleep(o.failForMs / 2);
    // Good input keeps flowing while the bad objects fail and back off.
    for (let i = o.good; i < 2 * o.good; i++) await driver.create(`good-${i}`, `g${i}`);
    await sleep(o.failForMs / 2);
    const badNames = new Set(BAD_CASES.map((b) => b.name));
    const gadgets = (await cluster.client.list<Gadget>({ ...GADGET, namespace: 'default' })).items;
    const badUids = gadgets
      .filter((g) => badNames.has(g.metadata?.name ?? ''))
      .map((g) => g.metadata?.uid ?? '');
    const isAboutBad = (p: string): boolean =>
      [...badNames].some((n) => p.startsWith(`${n}:`)) || badUids.some((u) => p.includes(u));
    let goodProblems: string[] = [];
    try {
      await eventually(
        async () =>
          (await convergence(cluster.client, driver, extDir, finalizer)).problems.filter(
            (p) => !isAboutBad(p),
          ).length === 0,
        20_000,
        'the good Gadgets to converge',
        100,
      );
    } catch {
      goodProblems = (await convergence(cluster.client, driver, extDir, finalizer)).problems.filter(
        (p) => !isAboutBad(p),
      );
    }
    const events = (
      await cluster.client.list<CoreV1Event>({
        apiVersion: 'v1',
        kind: 'Event',
        plural: 'events',
        namespace: 'default',
      })
    ).items;
    const cases = BAD_CASES.map((bad): BadCaseResult => {
      const mine = events.filter((e) => e.involvedObject.name === bad.name && e.type === 'Warning');
      const obj = gadgets.find((g) => g.metadata?.name === bad.name);
      const key = `default/${bad.name}`;
      return {
        name: bad.name.length > 40 ? `${bad.name.slice(0, 12)}…(${bad.name.length} chars)` : bad.name,
        warningReasons: [...new Set(mine.map((e) => e.reason ?? ''))],
        warningCount: mine.reduce((sum, e) => sum + (e.count ?? 1), 0),
        attempts: tracker.attempts.get(key) ?? 0,
        abortedBySignal: tracker.abortedBySignal.get(key) ?? 0,
        errorConditions: (obj?.status?.conditions ?? [])
          .filter((c) => c.status === 'False')
          .map((c) => `${c.type}/${c.reason}`),
      };
    });
    const ready = framework.ready;
    // Bad objects can still be deleted: their cleanup runs and the finalizer goes.
    for (const bad of BAD_CASES) await driver.delete(bad.name);
    let cleanupProblems: string[] = [];
    try {
      await eventually(
        async () => (await convergence(cluster.client, driver, extDir, finalizer)).problems.length === 0,
        10_000,
        'the bad Gadgets to be deleted',
        100,
      );
    } catch {
      cleanupProblems = (await convergence(cluster.client, driver, extDir, finalizer)).problems;
    }
    return { cases, goodProblems, ready, cleanupProblems };
  } finally {
    await framework.stop();
    await cluster.close();
    removeDir(dir);
  }
}
