// A grafana-app-sdk style operator (docs/coming-from-grafana-app-sdk.md): an InformerController whose
// OpinionatedReconciler puts a finalizer on every Widget, keeps a ConfigMap with its color, and deletes
// that ConfigMap before the finalizer lets the Widget go.
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import {
  InformerController,
  OpinionatedReconciler,
  SimpleReconciler,
  clientKey,
  isNotFound,
  opinionatedRetryDequeuePolicy,
  runUntilSignal,
} from 'reconcilekit';

type Widget = KubernetesObject & { spec: { color: string } };

const controller = new InformerController({
  name: 'widget-informer-controller',
  retryDequeuePolicy: opinionatedRetryDequeuePolicy,
});
controller.addInformer({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'widgets');
controller.addReconciler(
  new OpinionatedReconciler({
    finalizer: 'example.com/widget-configmap',
    reconciler: new SimpleReconciler(async (ctx, req) => {
      const widget = req.object as Widget;
      const { namespace, name = '' } = widget.metadata ?? {};
      const client = ctx.get(clientKey);
      if (client === undefined) throw new Error('no API connection');
      const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: `${name}-widget` };
      if (req.action === 'deleted') {
        // Runs while the finalizer still holds the Widget: a failure keeps it and is retried.
        await client.delete(ref).catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
        });
        ctx.logger.info('widget cleaned up', { name });
        return;
      }
      const configMap: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace, name: ref.name, labels: { 'example.com/widget': name } },
        data: { color: widget.spec.color },
      };
      await client.apply(configMap, { fieldManager: 'widget-informer-controller', force: true });
      ctx.logger.info('widget reconciled', { name, action: req.action });
    }),
  }),
  'widgets',
);

// Stops gracefully on SIGTERM/SIGINT and exits 0; KUBECONFIG, ~/.kube/config or in-cluster.
await runUntilSignal(controller);
