import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { clientKey } from '../../lib/engine/context-keys.js';
import type { StatusCondition } from '../../lib/status/status-conditions.js';

export const GROUP = 'phases.reconcilekit.io';
export const API_VERSION = `${GROUP}/v1`;
export const GADGET = { apiVersion: API_VERSION, kind: 'Gadget', plural: 'gadgets' } as const;
export const PLAIN = { apiVersion: API_VERSION, kind: 'Plain', plural: 'plains' } as const;
export const STRICT = { apiVersion: API_VERSION, kind: 'Strict', plural: 'stricts' } as const;

/** metav1.Condition's OpenAPI schema, as controller-gen writes it: the server enforces the limits. */
const CONDITION_SCHEMA = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: {
      type: 'string',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    },
    message: { type: 'string', maxLength: 32768 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
  },
};

function crd(kind: string, plural: string, withStatus: boolean, reasons?: string[]): KubernetesObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(withStatus ? { subresources: { status: {} } } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                status: {
                  type: 'object',
                  'x-kubernetes-preserve-unknown-fields': true,
                  properties: {
                    conditions: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                      items:
                        reasons === undefined
                          ? CONDITION_SCHEMA
                          : {
                              ...CONDITION_SCHEMA,
                              properties: {
                                ...CONDITION_SCHEMA.properties,
                                reason: { type: 'string', enum: reasons },
                              },
                            },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  } as KubernetesObject;
}

export interface Gadget extends KubernetesObject {
  spec?: Record<string, unknown>;
  status?: { conditions?: StatusCondition[]; [k: string]: unknown };
}

export interface Cluster {
  server: ApiServer;
  kubeConfig: KubeConfig;
  client: ObjectClient;
  ctx(signal?: AbortSignal): ReconcileContext;
  gadget(name: string, spec?: Record<string, unknown>): Promise<Gadget>;
  /** A Plain object: no status subresource, so status writes go through the main resource — where the
   *  embedded server validates them against the schema (it does not validate /status writes yet). */
  plain(name: string): Promise<Gadget>;
  readPlain(name: string): Promise<Gadget>;
  read(name: string): Promise<Gadget>;
  close(): Promise<void>;
}

/** An embedded API server with the Gadget (status subresource) and Plain (none) CRDs. */
export async function startCluster(): Promise<Cluster> {
  const server = await startApiServer({ host: '127.0.0.1', port: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  await client.create(crd('Gadget', 'gadgets', true));
  await client.create(crd('Plain', 'plains', false));
  // Strict: no status subresource (validated writes) and only these condition reasons.
  await client.create(crd('Strict', 'stricts', false, ['Locked', 'Error', 'Created']));
  for (const ref of [GADGET, PLAIN, STRICT]) {
    for (let i = 0; i < 200; i++) {
      try {
        await client.resolve(ref);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  }
  return {
    server,
    kubeConfig,
    client,
    ctx(signal) {
      const ctx = new ReconcileContext(signal === undefined ? {} : { signal });
      ctx.set(clientKey, client);
      return ctx;
    },
    gadget(name, spec = {}) {
      return client.create<Gadget>({
        apiVersion: API_VERSION,
        kind: 'Gadget',
        metadata: { name, namespace: 'default' },
        spec,
      });
    },
    plain(name) {
      return client.create<Gadget>({
        apiVersion: API_VERSION,
        kind: 'Plain',
        metadata: { name, namespace: 'default' },
        spec: {},
      });
    },
    readPlain(name) {
      return client.get<Gadget>({ ...PLAIN, namespace: 'default', name });
    },
    read(name) {
      return client.get<Gadget>({ ...GADGET, namespace: 'default', name });
    },
    async close() {
      client.close();
      await server.close();
    },
  };
}

/** The `type` condition of `obj` as `status/reason`. */
export function shown(obj: Gadget, type: string): string | undefined {
  const c = obj.status?.conditions?.find((x) => x.type === type);
  return c === undefined ? undefined : `${c.status}/${c.reason}`;
}

/** Polls `check` until truthy or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
