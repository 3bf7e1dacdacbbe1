// The shape every system under test is wrapped in, so the driver treats them alike.

/** The systems the bench compares. */
export type SystemName =
  | 'reconcilekit'
  | 'reconcilekit-controller'
  | 'reconcilekit-readme'
  | 'dot-i'
  | 'hand-written'
  | 'controller-runtime'
  | 'controller-runtime-docs'
  | 'floor';

/** Options every bench operator gets. */
export interface BenchOperatorOptions {
  /** Kubeconfig file of the API server (also exported as KUBECONFIG for peers that only read that). */
  kubeconfigPath: string;
  /** Namespace holding the Websites. */
  namespace: string;
  /** Concurrent reconciles (reconcilekit only; the peers are sequential by design). */
  workers: number;
  /** The operator starts as soon as it is loaded (the clock from process spawn); the Go peer needs to know. */
  autostart?: boolean;
}

/** A running operator under test. */
export interface BenchOperator {
  /** Starts watching and reconciling; resolves once it has begun (not when converged). */
  start(): Promise<void>;
  /** Stops watching; the process exits afterwards anyway. */
  stop(): Promise<void>;
  /** Handler calls (peers) or reconciles (reconcilekit) so far. */
  calls(): number;
  /** Handler errors so far (no system logs during the bench). */
  errors(): Promise<number>;
  /** Counts and resource use of a system running in another process (the Go peer); default: this process. */
  usage?(): Promise<OperatorUsage>;
  /** Unix ms (sub-ms precision) of the first reconcile, 0 before it; systems that record it. */
  firstCallAtMs?(): number;
  /** Unix ms at which the system's own process was spawned, when it is not this process (the Go peer). */
  spawnedAtMs?: number;
}

/** Counts and resource use of an operator process. */
export interface OperatorUsage {
  calls: number;
  errors: number;
  /** User + system CPU ms of the operator process so far. */
  cpuMs: number;
  /** Peak resident set size of the operator process, KiB. */
  maxRssKiB: number;
  /** Resident set size now, KiB. */
  rssKiB?: number;
  /** Unix ms of the first reconcile (0 before it), when the system records it. */
  firstCallAtMs?: number;
  /** Unix ms at which the process had its modules loaded (the Go peer: its manager built). */
  loadedAtMs?: number;
}
