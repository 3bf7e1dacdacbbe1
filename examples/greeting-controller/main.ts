// A reconcile-function operator: every Greeting gets a ConfigMap with its message (docs/controller.md).
import type { V1ConfigMap } from '@kubernetes/client-node';
import { Controller, clientKey, eventRecorderKey, runUntilSignal } from 'reconcilekit';
import { Greeting } from './greeting.js';

const controller = new Controller<Greeting>({
  name: 'greeting-controller',
  resource: Greeting, // the kind of greeting.ts: its apiVersion, kind and plural
  owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }], // an edited or deleted ConfigMap wakes its Greeting
  reconciler: async (ctx, { object: greeting, action }) => {
    if (action === 'deleted') return; // the ownerReference below lets Kubernetes delete the ConfigMap
    const { namespace, name = '', uid = '' } = greeting.metadata;
    const owner = { apiVersion: 'example.com/v1', kind: 'Greeting', name, uid, controller: true };
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace, name: `${name}-greeting`, ownerReferences: [owner] },
      data: { message: greeting.spec.message },
    };
    // Server-side apply creates or updates it; a failure throws and is retried with backoff.
    await ctx.get(clientKey)?.apply(configMap, { fieldManager: 'greeting-controller', force: true });
    const say = ctx.get(eventRecorderKey);
    say?.({ type: 'Normal', reason: 'Greeted', message: `ConfigMap ${name}-greeting holds the message` });
  },
});

// Stops gracefully on SIGTERM/SIGINT and exits 0; KUBECONFIG, ~/.kube/config or in-cluster.
await runUntilSignal(controller);
