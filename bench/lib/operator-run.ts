// Starts one operator under test in its own child process against a target.
import { performance } from 'node:perf_hooks';
import type { SystemName } from '../operators/bench-operator.js';
import type { BenchContext } from './bench-context.js';
import { Child } from './child.js';
import { controllerRuntimePeer } from './go-peer.js';
import type { Target } from './target.js';

/** A system row of workloads 2 and 3. */
export interface SystemUnderTest {
  label: string;
  system: SystemName;
  workers: number;
  /** Extra environment of the operator child (e.g. the live view on). */
  env?: Record<string, string>;
}

export const RECONCILEKIT_8: SystemUnderTest = {
  label: 'reconcilekit, 8 workers',
  system: 'reconcilekit',
  workers: 8,
};
export const RECONCILEKIT_1: SystemUnderTest = {
  label: 'reconcilekit, 1 worker',
  system: 'reconcilekit',
  workers: 1,
};
export const DOT_I: SystemUnderTest = { label: '@dot-i/k8s-operator 1.3.9', system: 'dot-i', workers: 1 };
export const HAND_WRITTEN: SystemUnderTest = {
  label: 'client-node 1.4 informer, hand-written',
  system: 'hand-written',
  workers: 1,
};

/** reconcilekit with the live view's history on (debugPage via RECONCILEKIT_DEBUG_PAGE): its overhead (issue 20). */
export const RECONCILEKIT_8_LIVE_VIEW: SystemUnderTest = {
  label: 'reconcilekit, 8 workers, live view on',
  system: 'reconcilekit',
  workers: 8,
  env: { RECONCILEKIT_DEBUG_PAGE: '1' },
};

/** The same work through the reconcile-function front end (`Controller`) on the same engine. */
export const RECONCILEKIT_CONTROLLER_8: SystemUnderTest = {
  label: 'reconcilekit Controller, 8 workers',
  system: 'reconcilekit-controller',
  workers: 8,
};

export const RECONCILEKIT_CONTROLLER_1: SystemUnderTest = {
  label: 'reconcilekit Controller, 1 worker',
  system: 'reconcilekit-controller',
  workers: 1,
};

/** The controller-runtime peer (Go, bench/peers/controller-runtime), present when Go is installed. */
export const CONTROLLER_RUNTIME_8: SystemUnderTest = {
  label: 'controller-runtime 0.25, 8 workers',
  system: 'controller-runtime',
  workers: 8,
};
export const CONTROLLER_RUNTIME_1: SystemUnderTest = {
  label: 'controller-runtime 0.25, 1 worker',
  system: 'controller-runtime',
  workers: 1,
};

/** reconcilekit as the README teaches it: live reads through the framework's client (workload 9). */
export const RECONCILEKIT_README_8: SystemUnderTest = {
  label: 'reconcilekit (README idiom), 8 workers',
  system: 'reconcilekit-readme',
  workers: 8,
};
export const RECONCILEKIT_README_1: SystemUnderTest = {
  label: 'reconcilekit (README idiom), 1 worker',
  system: 'reconcilekit-readme',
  workers: 1,
};

/** controller-runtime as kubebuilder's tutorial teaches it: typed, cached client, defaults (workload 9). */
export const CONTROLLER_RUNTIME_DOCS_8: SystemUnderTest = {
  label: 'controller-runtime 0.25 (docs idiom), 8 workers',
  system: 'controller-runtime-docs',
  workers: 8,
};
export const CONTROLLER_RUNTIME_DOCS_1: SystemUnderTest = {
  label: 'controller-runtime 0.25 (docs idiom), 1 worker',
  system: 'controller-runtime-docs',
  workers: 1,
};

/** Workload 9's systems: each idiom with 8 workers and with 1. */
export const USER_IDIOM_SYSTEMS: readonly SystemUnderTest[] = [
  RECONCILEKIT_README_8,
  CONTROLLER_RUNTIME_DOCS_8,
  RECONCILEKIT_README_1,
  CONTROLLER_RUNTIME_DOCS_1,
];

/** The write floor: only the required writes over 8 keep-alive connections (workload 2 only). */
export const FLOOR: SystemUnderTest = {
  label: 'write floor (raw client, 8 connections)',
  system: 'floor',
  workers: 8,
};

/** Every system of workloads 2 and 3, reconcilekit (8 workers) first: ratios are to that row. */
export const SYSTEMS: readonly SystemUnderTest[] = [
  RECONCILEKIT_8,
  RECONCILEKIT_1,
  CONTROLLER_RUNTIME_8,
  CONTROLLER_RUNTIME_1,
  DOT_I,
  HAND_WRITTEN,
];

/** Workload 2 also compares the two front ends of the engine. */
export const END_TO_END_SYSTEMS: readonly SystemUnderTest[] = [
  RECONCILEKIT_8,
  RECONCILEKIT_8_LIVE_VIEW,
  RECONCILEKIT_1,
  RECONCILEKIT_CONTROLLER_8,
  RECONCILEKIT_CONTROLLER_1,
  CONTROLLER_RUNTIME_8,
  CONTROLLER_RUNTIME_1,
  DOT_I,
  HAND_WRITTEN,
  FLOOR,
];

/** The systems of workloads 2 and 3 selected by --systems (all by default). */
export function selectedSystems(
  ctx: BenchContext,
  systems: readonly SystemUnderTest[] = SYSTEMS,
): readonly SystemUnderTest[] {
  const only = ctx.systems;
  const chosen =
    only === undefined
      ? systems
      : systems.filter((s) => only.includes(s.system) || only.includes(`${s.system}-${s.workers}`));
  // The Go peer's rows only when it is built (the reason it is not is printed once).
  return chosen.filter(
    (s) => !s.system.startsWith('controller-runtime') || controllerRuntimePeer() !== undefined,
  );
}

/** A loaded (not yet started) operator child. */
export interface OperatorRun {
  child: Child;
  /** Sends start; resolves with performance.now() at the moment start was sent. */
  start(): number;
  /** Handler calls / reconciles so far. */
  count(): Promise<{ calls: number; errors: number; cpuMs: number; maxRssKiB: number }>;
  stop(): Promise<void>;
}

/** An operator started from process spawn (workload 9): its clocks are Unix ms (`performance.timeOrigin + now`). */
export interface SpawnedOperator {
  child: Child;
  /** When the operator's process was spawned (the Go peer: its own process, not the Node wrapper). */
  spawnedAtMs: number;
  /** When its modules were loaded (the Go peer: its manager built). */
  loadedAtMs: number;
  count(): Promise<{
    calls: number;
    errors: number;
    cpuMs: number;
    maxRssKiB: number;
    rssKiB: number;
    firstCallAtMs: number;
    loadedAtMs: number;
  }>;
  stop(): Promise<void>;
}

/** Unix ms with sub-ms precision, comparable across this machine's processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Spawns an operator child that starts at once (no 'start' message): the clock from process spawn. Its
 * stdout and stderr (the README idiom's JSON log lines, zap's lines) go to `logFile`.
 */
export async function spawnOperator(
  ctx: BenchContext,
  target: Target,
  sut: SystemUnderTest,
  tag: string,
  logFile: string,
): Promise<SpawnedOperator> {
  const execArgv =
    ctx.profileDir === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${ctx.profileDir}`,
          `--cpu-prof-name=${tag}-${sut.system}-${sut.workers}-${Date.now()}.cpuprofile`,
        ];
  const forkedAtMs = nowMs();
  const child = Child.fork(
    'operators/operator-child.js',
    [sut.system, target.kubeconfigPath, target.namespace, String(sut.workers)],
    {
      env: {
        KUBECONFIG: target.kubeconfigPath,
        RECONCILEKIT_BENCH_AUTOSTART: '1',
        RECONCILEKIT_BENCH_LOG: logFile,
        ...sut.env,
      },
      execArgv,
      logFile,
    },
  );
  const loaded = await child.next('loaded', 60_000);
  const count: SpawnedOperator['count'] = async () => {
    const m = await child.ask({ type: 'count' }, 30_000);
    return {
      calls: m.calls as number,
      errors: m.errors as number,
      cpuMs: m.cpuMs as number,
      maxRssKiB: m.maxRssKiB as number,
      rssKiB: (m.rssKiB as number | undefined) ?? Number.NaN,
      firstCallAtMs: (m.firstCallAtMs as number | undefined) ?? 0,
      loadedAtMs: (m.loadedAtMs as number | undefined) ?? (loaded.atMs as number),
    };
  };
  return {
    child,
    spawnedAtMs: (loaded.spawnedAtMs as number | undefined) ?? forkedAtMs,
    loadedAtMs: loaded.atMs as number,
    count,
    stop: () => child.stop(),
  };
}

/** Forks the operator child and waits until its modules are loaded (so start time excludes imports). */
export async function loadOperator(
  ctx: BenchContext,
  target: Target,
  sut: SystemUnderTest,
  tag: string,
  env: Record<string, string> = {},
): Promise<OperatorRun> {
  const execArgv =
    ctx.profileDir === undefined
      ? []
      : [
          '--cpu-prof',
          `--cpu-prof-dir=${ctx.profileDir}`,
          `--cpu-prof-name=${tag}-${sut.system}-${sut.workers}-${Date.now()}.cpuprofile`,
        ];
  const child = Child.fork(
    'operators/operator-child.js',
    [sut.system, target.kubeconfigPath, target.namespace, String(sut.workers)],
    { env: { KUBECONFIG: target.kubeconfigPath, ...sut.env, ...env }, execArgv },
  );
  await child.next('loaded', 60_000);
  return {
    child,
    start: () => {
      const at = performance.now();
      child.send({ type: 'start' });
      return at;
    },
    count: async () => {
      const m = await child.ask({ type: 'count' }, 30_000);
      return {
        calls: m.calls as number,
        errors: m.errors as number,
        cpuMs: m.cpuMs as number,
        maxRssKiB: m.maxRssKiB as number,
      };
    },
    stop: () => child.stop(),
  };
}
