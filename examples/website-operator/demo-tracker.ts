import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { isNotFound, type ObjectClient, type ObjectRef } from 'reconcilekit';
import {
  configMapName,
  serverName,
  WEBSITE_API_VERSION,
  WEBSITE_KIND,
  WEBSITE_PLURAL,
  type Website,
} from './website.js';

/** What the demo shows per Website: the children (three objects and one file) and the Website itself. */
export const CHILD_KINDS = ['ConfigMap', 'Deployment', 'Service', 'PageFile'] as const;

/** One of {@link CHILD_KINDS}. */
export type ChildKind = (typeof CHILD_KINDS)[number];

/** One child as last seen. */
export interface ChildState {
  /** Changes whenever the child changes (resourceVersion, or the file's digest). */
  version: string;
  /** Short description (e.g. `2 replicas`). */
  detail: string;
}

/** One Website as last seen, with its children. */
export interface SiteSnapshot {
  name: string;
  /** The Website; undefined once it is gone. */
  website?: {
    version: string;
    generation: number;
    observedGeneration: number | undefined;
    ready: string;
    readyReason: string;
    finalizers: string[];
    deleting: boolean;
  };
  children: Partial<Record<ChildKind, ChildState>>;
}

/** A change the tracker saw between two polls. */
export interface ObservedChange {
  site: string;
  /** A child, the Website itself (deleted: its finalizer is gone), or its status (Ready condition). */
  kind: ChildKind | 'Website' | 'Status';
  action: 'created' | 'updated' | 'deleted';
  detail: string;
}

/** Options of {@link DemoTracker}. */
export interface DemoTrackerOptions {
  client: ObjectClient;
  namespace: string;
  /** Where the operator publishes pages (`<dir>/<namespace>/<name>.html`). */
  outputDir: string;
}

async function getOrUndefined<T extends KubernetesObject>(
  client: ObjectClient,
  ref: ObjectRef,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

function childFrom(obj: KubernetesObject | undefined, detail = ''): ChildState | undefined {
  return obj === undefined ? undefined : { version: obj.metadata?.resourceVersion ?? '', detail };
}

/**
 * Polls what exists for each tracked Website (by reading the cluster and the output directory, as a user
 * would) and reports every change: the demo's live table and its summary are built from these
 * observations, not from what the demo expects.
 */
export class DemoTracker {
  private readonly snapshots = new Map<string, SiteSnapshot>();
  /** Every change seen, in order. */
  readonly history: ObservedChange[] = [];

  constructor(private readonly options: DemoTrackerOptions) {}

  /** Starts tracking a Website by name. */
  track(name: string): void {
    if (!this.snapshots.has(name)) this.snapshots.set(name, { name, children: {} });
  }

  /** The latest snapshots, in tracking order. */
  sites(): SiteSnapshot[] {
    return [...this.snapshots.values()];
  }

  /** Reads everything once and returns the changes since the previous poll (also kept in `history`). */
  async poll(): Promise<ObservedChange[]> {
    const changes: ObservedChange[] = [];
    for (const [name, previous] of this.snapshots) {
      const next = await this.read(name);
      changes.push(...diff(previous, next));
      this.snapshots.set(name, next);
    }
    this.history.push(...changes);
    return changes;
  }

  private async read(name: string): Promise<SiteSnapshot> {
    const { client, namespace, outputDir } = this.options;
    const site = await getOrUndefined<Website>(client, {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace,
      name,
    });
    const named = { metadata: { name } } as KubernetesObject;
    const [configMap, deployment, service, page] = await Promise.all([
      getOrUndefined(client, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        plural: 'configmaps',
        namespace,
        name: configMapName(named),
      }),
      getOrUndefined<V1Deployment>(client, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        plural: 'deployments',
        namespace,
        name: serverName(named),
      }),
      getOrUndefined(client, {
        apiVersion: 'v1',
        kind: 'Service',
        plural: 'services',
        namespace,
        name: serverName(named),
      }),
      readFile(join(outputDir, namespace, `${name}.html`), 'utf8').catch(() => undefined),
    ]);
    const children: SiteSnapshot['children'] = {};
    const replicas = deployment?.spec?.replicas ?? 0;
    // A Deployment's resourceVersion also moves with its status (on a real cluster, constantly): track
    // its generation, which only moves when the spec does.
    const deploymentState =
      deployment === undefined
        ? undefined
        : {
            version: String(deployment.metadata?.generation ?? 0),
            detail: `${replicas} replica${replicas === 1 ? '' : 's'}`,
          };
    const states: [ChildKind, ChildState | undefined][] = [
      ['ConfigMap', childFrom(configMap)],
      ['Deployment', deploymentState],
      ['Service', childFrom(service)],
      [
        'PageFile',
        page === undefined
          ? undefined
          : { version: createHash('sha256').update(page).digest('hex'), detail: `${page.length} bytes` },
      ],
    ];
    for (const [kind, state] of states) if (state !== undefined) children[kind] = state;
    const snapshot: SiteSnapshot = { name, children };
    if (site !== undefined) {
      const ready = site.status?.conditions?.find((c) => c.type === 'Ready');
      snapshot.website = {
        version: site.metadata.labels?.['demo.reconcilekit.io/version'] ?? '1',
        generation: site.metadata.generation ?? 0,
        observedGeneration: site.status?.observedGeneration,
        ready: ready?.status ?? '',
        readyReason: ready?.reason ?? '',
        finalizers: site.metadata.finalizers ?? [],
        deleting: site.metadata.deletionTimestamp !== undefined,
      };
    }
    return snapshot;
  }
}

function diff(previous: SiteSnapshot, next: SiteSnapshot): ObservedChange[] {
  const changes: ObservedChange[] = [];
  const site = next.name;
  for (const kind of CHILD_KINDS) {
    const before = previous.children[kind];
    const after = next.children[kind];
    if (before === undefined && after !== undefined)
      changes.push({ site, kind, action: 'created', detail: after.detail });
    else if (before !== undefined && after === undefined)
      changes.push({ site, kind, action: 'deleted', detail: '' });
    else if (before !== undefined && after !== undefined && before.version !== after.version) {
      changes.push({ site, kind, action: 'updated', detail: after.detail });
    }
  }
  const before = previous.website;
  const after = next.website;
  if (
    after !== undefined &&
    after.ready !== '' &&
    (before?.ready !== after.ready || before.observedGeneration !== after.observedGeneration)
  ) {
    const state = after.ready === 'True' ? 'Ready' : `not Ready (${after.readyReason})`;
    changes.push({
      site,
      kind: 'Status',
      action: 'updated',
      detail: `${state}, generation ${String(after.observedGeneration)}`,
    });
  }
  if (previous.website !== undefined && next.website === undefined) {
    changes.push({ site, kind: 'Website', action: 'deleted', detail: 'finalizer removed' });
  }
  return changes;
}
