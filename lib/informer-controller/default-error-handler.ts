import type { ReconcileContext } from '../context/reconcile-context.js';
import { errorMessage } from '../errors/error-message.js';

/**
 * grafana's `DefaultErrorHandler`: logs the error with `component: 'InformerController'`.
 * @category Informer controller (grafana-app-sdk)
 */
export function defaultErrorHandler(ctx: ReconcileContext, err: unknown): void {
  ctx.logger.error(errorMessage(err), { component: 'InformerController', err });
}
