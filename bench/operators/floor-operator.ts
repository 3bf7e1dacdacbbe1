// The write floor: no operator at all, a raw keep-alive client (8 connections) issuing exactly the writes a
// perfect operator must make for the seeded Websites — create the ConfigMap, merge-patch the status — with no
// list, no watch and no read. The Websites' names, uids and generations come from the seeding step (a file
// named by RECONCILEKIT_BENCH_SEEDED), not from the API server.
import { readFileSync } from 'node:fs';
import { KubeRest } from '../lib/kube-rest.js';
import { forEachConcurrent } from '../lib/target.js';
import { configMapsPath, desiredConfigMap, websitesPath, type Website } from '../lib/website.js';
import type { BenchOperator, BenchOperatorOptions } from './bench-operator.js';

/** Connections (and requests in flight) of the floor. */
export const FLOOR_CONNECTIONS = 8;

/** The write floor behind the bench operator shape. */
export async function floorOperator(options: BenchOperatorOptions): Promise<BenchOperator> {
  const file = process.env.RECONCILEKIT_BENCH_SEEDED;
  if (file === undefined || file === '') throw new Error('RECONCILEKIT_BENCH_SEEDED is not set');
  const sites = JSON.parse(readFileSync(file, 'utf8')) as Website[];
  const rest = await KubeRest.fromFile(options.kubeconfigPath, FLOOR_CONNECTIONS);
  let calls = 0;
  let errors = 0;
  let running: Promise<void> = Promise.resolve();
  return {
    start: () => {
      running = forEachConcurrent(sites.length, FLOOR_CONNECTIONS, async (i) => {
        const site = sites[i]!;
        calls += 1;
        try {
          await rest.request('POST', configMapsPath(options.namespace), desiredConfigMap(site));
          await rest.request(
            'PATCH',
            `${websitesPath(options.namespace)}/${site.metadata.name ?? ''}/status`,
            { status: { observedGeneration: site.metadata.generation } },
            { contentType: 'application/merge-patch+json' },
          );
        } catch {
          errors += 1;
        }
      });
      return Promise.resolve();
    },
    stop: async () => {
      await running;
      rest.close();
    },
    calls: () => calls,
    errors: () => Promise.resolve(errors),
  };
}
