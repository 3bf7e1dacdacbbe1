/**
 * `Operator`: many controllers of any front end in one process, sharing one health server, metrics registry, informer cache and Lease.
 *
 * @module reconcilekit/operator
 */
export { Operator } from './operator.js';
export {
  DEFAULT_MEMBER_START_TIMEOUT_MS,
  DEFAULT_MEMBER_STOP_TIMEOUT_MS,
  type OperatorOptions,
  type OperatorController,
  type AddControllerOptions,
} from './operator-options.js';
