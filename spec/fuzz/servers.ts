// The servers a fuzz run compares: an embedded server started here, and kube-apiserver from KUBECONFIG
// (`make test-real` / `make fuzz-real`) — or a second embedded server, which must agree with the first on
// everything (the check that normalisation leaves nothing random behind).
import { readFileSync } from 'node:fs';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { Backend } from './backend.js';
import { WIDGET_GROUP } from './kinds.js';
import { WIDGET_CRD, WIDGET_CRD_NAME } from './widget-crd.js';

export interface EmbeddedBackend {
  server: ApiServer;
  backend: Backend;
  close(): Promise<void>;
}

export async function startEmbedded(name = 'embedded'): Promise<EmbeddedBackend> {
  const server = await startApiServer();
  const backend = await Backend.fromKubeconfig(name, server.kubeconfig);
  await installWidgetCrd(backend);
  return {
    server,
    backend,
    close: async () => {
      backend.close();
      await server.close();
    },
  };
}

/** kube-apiserver (or any cluster) named by the KUBECONFIG file. */
export async function kubeconfigBackend(name = 'kube-apiserver'): Promise<Backend> {
  const path = process.env.KUBECONFIG ?? '';
  const backend = await Backend.fromKubeconfig(name, readFileSync(path, 'utf8'));
  await installWidgetCrd(backend);
  return backend;
}

/** Creates (or updates) the fuzzer's CRD and waits until both its versions are served. */
export async function installWidgetCrd(backend: Backend): Promise<void> {
  const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const created = await backend.request('POST', path, JSON.stringify(WIDGET_CRD));
  if (created.status === 409) {
    const current = await backend.request('GET', `${path}/${WIDGET_CRD_NAME}`);
    const meta = (current.body as { metadata: Record<string, unknown> }).metadata;
    const put = await backend.request(
      'PUT',
      `${path}/${WIDGET_CRD_NAME}`,
      JSON.stringify({
        ...WIDGET_CRD,
        metadata: { name: WIDGET_CRD_NAME, resourceVersion: meta.resourceVersion },
      }),
    );
    if (put.status !== 200)
      throw new Error(
        `${backend.name}: updating the fuzz CRD answered ${String(put.status)}: ${JSON.stringify(put.body)}`,
      );
  } else if (created.status !== 201) {
    throw new Error(
      `${backend.name}: creating the fuzz CRD answered ${String(created.status)}: ${JSON.stringify(created.body)}`,
    );
  }
  const deadline = Date.now() + 30_000;
  for (const version of ['v1', 'v2']) {
    for (;;) {
      const r = await backend.request('GET', `/apis/${WIDGET_GROUP}/${version}/fuzzwidgets?limit=1`);
      if (r.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`${backend.name}: fuzzwidgets ${version} never served: ${JSON.stringify(r.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
