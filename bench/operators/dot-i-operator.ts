// Peer: @dot-i/k8s-operator (latest on npm, 1.3.9) doing the same work — its Operator subclass with
// watchResource, the library's global sequential event queue, core API through its client-node 0.20
// CoreV1Api and status through its patchResourceStatus (merge patch).

import dotI from '@dot-i/k8s-operator';
import {
  WEBSITE_GROUP,
  WEBSITE_PLURAL,
  WEBSITE_VERSION,
  configMapName,
  dataMatches,
  desiredConfigMap,
  desiredData,
  statusObserved,
  type Website,
} from '../lib/website.js';
import type { BenchOperator, BenchOperatorOptions } from './bench-operator.js';

type ResourceEvent = Parameters<Parameters<InstanceType<typeof dotI.default>['watchResource']>[3]>[0];

class WebsiteOperator extends dotI.default {
  calls = 0;
  errors = 0;

  constructor(private readonly namespace: string) {
    super();
  }

  protected async init(): Promise<void> {
    await this.watchResource(
      WEBSITE_GROUP,
      WEBSITE_VERSION,
      WEBSITE_PLURAL,
      async (event) => {
        try {
          await this.onEvent(event);
        } catch {
          this.errors += 1;
        }
      },
      this.namespace,
    );
  }

  private async onEvent(event: ResourceEvent): Promise<void> {
    this.calls += 1;
    if (event.type === dotI.ResourceEventType.Deleted) return;
    const site = event.object as unknown as Website;
    const name = configMapName(site.metadata.name ?? '');
    let cm: { data?: Record<string, string> } | undefined;
    try {
      cm = (await this.k8sApi.readNamespacedConfigMap(name, this.namespace)).body;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
    }
    if (!cm) await this.k8sApi.createNamespacedConfigMap(this.namespace, desiredConfigMap(site));
    else if (!dataMatches(cm, site)) {
      await this.k8sApi.replaceNamespacedConfigMap(name, this.namespace, {
        ...cm,
        data: desiredData(site),
      });
    }
    if (!statusObserved(site)) {
      await this.patchResourceStatus(event.meta, { observedGeneration: site.metadata.generation });
    }
  }
}

/** The @dot-i/k8s-operator peer. KUBECONFIG must point at the server (the library reads only that). */
export function dotIOperator(options: BenchOperatorOptions): BenchOperator {
  process.env.KUBECONFIG = options.kubeconfigPath;
  const operator = new WebsiteOperator(options.namespace);
  return {
    start: () => operator.start(),
    stop: async () => {
      operator.stop();
    },
    calls: () => operator.calls,
    errors: () => Promise.resolve(operator.errors),
  };
}
