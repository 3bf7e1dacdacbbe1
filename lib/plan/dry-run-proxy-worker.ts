// The dry-run proxy's thread (see startDryRunProxy): serves until the parent says 'close', then answers
// with what it refused.
import { parentPort, workerData } from 'node:worker_threads';
import { KubeConfig } from '@kubernetes/client-node';
import { serveDryRunProxy } from './dry-run-proxy.js';

const port = parentPort;
if (port !== null) {
  const real = new KubeConfig();
  real.loadFromString((workerData as { kubeconfig: string }).kubeconfig);
  const proxy = await serveDryRunProxy(real);
  port.postMessage({ url: proxy.url, kubeconfig: proxy.kubeconfig });
  port.on('message', (message: unknown) => {
    if (message !== 'close') return;
    const refused = [...proxy.refused];
    void proxy.close().then(() => {
      port.postMessage({ refused });
      port.close();
    });
  });
}
