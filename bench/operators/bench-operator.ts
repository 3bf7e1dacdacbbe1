// The shape every system under test is wrapped in, so the driver treats them alike.

/** The systems the bench compares. */
export type SystemName =
  'reconcilekit' | 'reconcilekit-controller' | 'dot-i' | 'hand-written' | 'controller-runtime' | 'floor';

/** Options every bench operator gets. */
export interface BenchOperatorOptions {
  /** Kubeconfig file of the API server (also exported as KUBECONFIG for peers that only read that). */
  kubeconfigPath: string;
  /** Namespace holding the Websites. */
  namespace: string;
  /** Concurrent reconciles (reconcilekit only; the peers are sequential by design). */
  workers: number;
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
}

/** Counts and resource use of an operator process. */
export interface OperatorUsage {
  calls: number;
  errors: number;
  /** User + system CPU ms of the operator process so far. */
  cpuMs: number;
  /** Peak resident set size of the operator process, KiB. */
  maxRssKiB: number;
}
