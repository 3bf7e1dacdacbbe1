import { randomBytes } from 'node:crypto';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { cleanUpSharedServer, REAL_BACKEND } from '../real/real-backend.js';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import type { Resource } from '../../lib/crud/resource/resource.js';

// On the shared kube-apiserver of `make test-real` every spec file gets a Widget group of its own (the
// module is loaded once per file), so files never see each other's objects.
export const GROUP = REAL_BACKEND
  ? `t${randomBytes(3).toString('hex')}.test.reconcilekit.io`
  : 'test.reconcilekit.io';
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

/**
 * An API server with the Widget CRD installed, and a client on it: a fresh embedded server per harness, or,
 * under `make test-real`, the shared kube-apiserver of KUBECONFIG, left clean for the next test by
 * `close()`.
 */
export interface Harness {
  /** The embedded server. On the real backend there is none: a spec that needs it skips itself there. */
  server: ApiServer;
  kubeConfig: KubeConfig;
  client: ObjectClient;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  if (REAL_BACKEND) return startRealHarness();
  const server = await startApiServer({ host: '127.0.0.1', port: 0 });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  await client.create(WIDGET_CRD);
  await waitForWidgets(client);
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

async function waitForWidgets(client: ObjectClient): Promise<void> {
  for (let i = 0; i < 250; i++) {
    try {
      await client.resolve(WIDGET);
      // kube-apiserver answers 429 "storage is (re)initializing" until the new resource's watch cache is ready.
      await client.list({ ...WIDGET, namespace: 'default' });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function startRealHarness(): Promise<Harness> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const client = new ObjectClient({ kubeConfig });
  await client.create(WIDGET_CRD).catch((e: unknown) => {
    if ((e as { code?: number }).code !== 409) throw e;
  });
  await waitForWidgets(client);
  const server = new Proxy({} as ApiServer, {
    get(_target, property) {
      throw new Error(`harness.server.${String(property)}: this spec needs the embedded API server`);
    },
  });
  return {
    server,
    kubeConfig,
    client,
    async close() {
      await cleanUpSharedServer(client, WIDGET);
      client.close();
    },
  };
}

/**
 * A fresh harness per test (`t.h`) and stop functions (`t.stops`) run after the test, before the harness
 * closes: the set-up of a describe block whose tests each start controllers.
 */
export function useHarness(): { h: Harness; stops: (() => Promise<void>)[] } {
  const t = { h: undefined as unknown as Harness, stops: [] as (() => Promise<void>)[] };
  beforeEach(async () => {
    t.h = await startHarness();
  });
  afterEach(async () => {
    for (const stop of t.stops.splice(0)) await stop();
    await t.h.close();
  });
  return t;
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
