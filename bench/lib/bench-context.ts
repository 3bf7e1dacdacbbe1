import type { BenchSizes } from './bench-sizes.js';
import type { Plot } from './svg-plot.js';

/** What every workload gets from the command line. */
export interface BenchContext {
  /** Workload sizes and repetitions. */
  sizes: BenchSizes;
  /** Mode name for the report: "full", "quick" or "tiny". */
  mode: 'full' | 'quick' | 'tiny';
  /** Kubeconfig of a real cluster to run workloads 2–5 against as well (from KUBECONFIG); undefined = none. */
  clusterKubeconfig: string | undefined;
  /** Heading of the cluster's tables (e.g. the real kube-apiserver the bench started); default generic. */
  clusterTitle?: string;
  /** Directory for --cpu-prof profiles of the operator children; undefined = no profiling. */
  profileDir: string | undefined;
  /** Workload 9's sizes (`--sizes`); undefined = the mode's. */
  idiomSizes?: number[];
  /** `--runs` when given: workload 9 then uses it at every size. */
  runsOverride?: number;
  /** Only these systems in workloads 2 and 3 (labels' system names); undefined = all. */
  systems: readonly string[] | undefined;
  /**
   * Restarts the real kube-apiserver the bench started (etcd kept): watches resumed from before get 410 Gone,
   * so operators relist. Undefined with a KUBECONFIG cluster or without the real backend.
   */
  restartRealApiServer?: () => Promise<void>;
}

/** A target check: what issue 6 asks for and whether the numbers meet it. */
export interface TargetCheck {
  target: string;
  actual: string;
  met: boolean;
}

/** What a workload hands back to the report. */
export interface WorkloadResult {
  id: number;
  title: string;
  /** Markdown: the table(s) and notes. */
  markdown: string;
  targets: TargetCheck[];
  /** Raw numbers for bench/results/<date>.json. */
  raw: unknown;
  /** Bars for the workload's SVG (bench/results/<date>-workload-<id>.svg). */
  plot?: Plot;
}

/** Renders target checks as a markdown list. */
export function targetLines(checks: readonly TargetCheck[]): string {
  return checks.map((c) => `- ${c.met ? 'met' : '**missed**'}: ${c.target} — ${c.actual}`).join('\n');
}
