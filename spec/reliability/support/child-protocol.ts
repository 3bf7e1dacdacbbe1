import type { LeaderElectionOptions } from '../../../lib/crud/framework-config.js';
import type { LogLevel } from '../../../lib/observability/logger.js';

/** What the parent passes to a child operator in the `RELIABILITY_CHILD` environment variable (JSON). */
export interface ChildConfig {
  /** Kubeconfig file of the API server. */
  kubeconfigPath: string;
  /** Directory of the external side effect. */
  extDir: string;
  /** Side-effect log shared by every child of the scenario. */
  logPath: string;
  /** Pause inside external writes, so kills land mid-step. */
  stepDelayMs?: number;
  /** Reconcile workers. */
  workers?: number;
  /** Leader election settings (failover). */
  leaderElection?: LeaderElectionOptions;
  /** Graceful shutdown budget. */
  gracefulShutdownMs?: number;
  /** Log level of the child's JSON log on stdout. */
  logLevel?: LogLevel;
  /** Manage a child Secret too. */
  manageSecrets?: boolean;
}

/** Line a child prints on stdout once `framework.start()` resolved. */
export const CHILD_READY_LINE = 'reliability-child-ready';
/** Exit code of a child that saw an unhandled promise rejection or exception. */
export const CHILD_UNHANDLED_EXIT_CODE = 70;
