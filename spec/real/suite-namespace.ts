// A namespace of its own for one describe block of a real-backend spec (`make test-real`), so specs that
// share the server do not see each other's objects.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { ObjectClient } from '../../lib/kube/object-client.js';

/** A spec's own namespace on the shared server, and a client of that server. */
export interface SuiteNamespace {
  /** `<prefix>-<6 hex digits>`. */
  readonly name: string;
  /** A client of the cluster of KUBECONFIG (from the describe block's beforeAll on). */
  readonly client: ObjectClient;
}

/**
 * Call in a describe block: its namespace is created before its tests and deleted (the client closed)
 * after them.
 */
export function suiteNamespace(prefix: string): SuiteNamespace {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  let client: ObjectClient | undefined;
  beforeAll(async () => {
    client = new ObjectClient({ kubeConfig: loadKubeConfig() });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  });
  afterAll(async () => {
    await client?.delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined);
    client?.close();
  });
  return {
    name,
    get client(): ObjectClient {
      if (client === undefined) throw new Error('suiteNamespace: the client exists from beforeAll on');
      return client;
    },
  };
}
