import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import type { Resource } from '../../lib/resource/resource.js';

export const GROUP = 'test.reconcilekit.io';
export const API_VERSION = `${GROUP}/v1`;
export const KIND = 'Widget';
export const WIDGET = { apiVersion: API_VERSION, kind: KIND, plural: 'widgets' } as const;

export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: KIND, listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

export interface Widget extends KubernetesObject {
  spec?: Record<string, unknown>;
}

/** An embedded API server with the Widget CRD installed, and a client on it. */
export interface Harness {
  server: ApiServer;
  kubeConfig: KubeConfig;
  client: ObjectClient;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const server = await startApiServer({ host: '127.0.0.1', port: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  await client.create(WIDGET_CRD);
  for (let i = 0; i < 100; i++) {
    try {
      await client.resolve(WIDGET);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return {
    server,
    kubeConfig,
    client,
    async close() {
      client.close();
      await server.close();
    },
  };
}

export function widget(
  name: string,
  extra: Partial<Widget['metadata']> = {},
  spec: Record<string, unknown> = {},
): Widget {
  const metadata: Record<string, unknown> = { name, namespace: 'default', ...extra };
  return { apiVersion: API_VERSION, kind: KIND, metadata, spec };
}

export function ref(name: string) {
  return { ...WIDGET, namespace: 'default', name };
}

/** Polls `check` until it returns a truthy value (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A resource recording every call, with per-key concurrency instrumentation and pluggable behaviour. */
export class RecordingResource implements Resource<Widget> {
  readonly name: string;
  readonly calls: { op: 'create' | 'delete'; key: string; version?: string }[] = [];
  readonly inFlight = new Map<string, number>();
  maxConcurrentPerKey = 0;
  onCreate: ((ctx: ReconcileContext, obj: Widget) => Promise<void> | void) | undefined;
  onDelete: ((ctx: ReconcileContext, obj: Widget) => Promise<void> | void) | undefined;

  constructor(name = 'recorder') {
    this.name = name;
  }

  count(op: 'create' | 'delete', name?: string): number {
    return this.calls.filter((c) => c.op === op && (name === undefined || c.key === `default/${name}`))
      .length;
  }

  async ensureCreated(ctx: ReconcileContext, obj: Widget): Promise<void> {
    await this.track('create', obj, () => this.onCreate?.(ctx, obj));
  }

  async ensureDeleted(ctx: ReconcileContext, obj: Widget): Promise<void> {
    await this.track('delete', obj, () => this.onDelete?.(ctx, obj));
  }

  private async track(op: 'create' | 'delete', obj: Widget, body: () => Promise<void> | void): Promise<void> {
    const key = `${obj.metadata?.namespace}/${obj.metadata?.name}`;
    const n = (this.inFlight.get(key) ?? 0) + 1;
    this.inFlight.set(key, n);
    this.maxConcurrentPerKey = Math.max(this.maxConcurrentPerKey, n);
    this.calls.push({ op, key, version: obj.metadata?.resourceVersion });
    try {
      await body();
    } finally {
      this.inFlight.set(key, (this.inFlight.get(key) ?? 1) - 1);
    }
  }
}
