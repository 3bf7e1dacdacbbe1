// The places a workload runs in: the embedded API server always, and the cluster of KUBECONFIG when set.
// In full mode every run gets a fresh embedded server (no run inherits another's objects or history); in
// quick and tiny modes one server per workload is shared and every run gets a fresh namespace instead,
// which saves a server start per run.
import type { BenchContext } from './bench-context.js';
import { clusterTarget, embeddedTarget, prepareNamespace, type Target } from './target.js';

/** Where runs happen, and how to get a fresh target for one run. */
export interface Place {
  /** "embedded" or "cluster". */
  name: 'embedded' | 'cluster';
  /** A fresh target for one run; close it after the run. */
  make(): Promise<Target>;
  /** Releases what the place kept across runs (the shared server). */
  dispose(): Promise<void>;
  /** Heading of the place's tables, when not the default. */
  title?: string;
}

/** Options of the targets a workload needs. */
export interface PlaceOptions {
  /** Install the Website CRD in every target. Default true. */
  installCrd?: boolean;
}

function sharedEmbedded(ctx: BenchContext, installCrd: boolean): Place {
  let server: Promise<Target> | undefined;
  let runs = 0;
  return {
    name: 'embedded',
    make: async () => {
      server ??= embeddedTarget({ installCrd, profileDir: ctx.profileDir });
      const base = await server;
      runs += 1;
      const namespace = `bench-${runs}`;
      await prepareNamespace(base.rest, namespace, installCrd);
      const target: Target = { ...base, namespace, close: () => Promise.resolve() };
      if (runs > 1) delete target.listening;
      return target;
    },
    dispose: async () => {
      if (server !== undefined) await (await server).close();
    },
  };
}

/** The places of a workload, embedded first. */
export function placesFor(ctx: BenchContext, options: PlaceOptions = {}): Place[] {
  const installCrd = options.installCrd ?? true;
  const places: Place[] = [
    ctx.mode === 'full'
      ? {
          name: 'embedded',
          make: () => embeddedTarget({ installCrd, profileDir: ctx.profileDir }),
          dispose: () => Promise.resolve(),
        }
      : sharedEmbedded(ctx, installCrd),
  ];
  const cluster = ctx.clusterKubeconfig;
  if (cluster !== undefined) {
    places.push({
      name: 'cluster',
      make: () => clusterTarget(cluster, { installCrd }),
      dispose: () => Promise.resolve(),
      ...(ctx.clusterTitle === undefined ? {} : { title: ctx.clusterTitle }),
    });
  }
  return places;
}

/** Heading of a place's table. */
export function placeTitle(place: Place): string {
  return place.title ?? (place.name === 'embedded' ? 'Embedded API server' : 'Cluster from KUBECONFIG');
}
