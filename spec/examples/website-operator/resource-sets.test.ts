import { CRUDResource, ReconcileContext, ResourceRouter, underlying, updateAllowed } from 'reconcilekit';
import { describe, expect, it } from 'vitest';
import { parseOperatorOptions } from '../../../examples/website-operator/operator-options.js';
import { createWebsiteResourceSets } from '../../../examples/website-operator/resource-sets.js';
import type { WebsiteClient } from '../../../examples/website-operator/kube-client.js';
import { storedWebsite } from './fixtures.js';

const client = {} as WebsiteClient;

describe('website resource sets', () => {
  const sets = createWebsiteResourceSets({ client, outputDir: '/tmp/unused' });
  const router = new ResourceRouter({ resourceSets: sets });

  it('routes Websites without the version label, and with "1", to version 1', () => {
    expect(router.resourceSet(storedWebsite())).toBe(sets[0]);
    expect(router.resourceSet(storedWebsite({}, { 'demo.reconcilekit.io/version': '1' }))).toBe(sets[0]);
  });

  it('routes version "2" to the second set and no set handles an unknown version', () => {
    expect(router.resourceSet(storedWebsite({}, { 'demo.reconcilekit.io/version': '2' }))).toBe(sets[1]);
    expect(() => router.resourceSet(storedWebsite({}, { 'demo.reconcilekit.io/version': '3' }))).toThrow();
  });

  it('gives each set the five resources in order: children first, status last', () => {
    for (const set of sets) {
      const names = set.resources().map((r) => underlying(r).name);
      expect(names).toEqual(['configmap', 'deployment', 'service', 'page-file', 'status']);
      expect(set.resources().every((r) => underlying(r) instanceof CRUDResource)).toBe(true);
    }
  });

  it('sets updateAllowed in version 2 only when the operator allows Deployment updates', async () => {
    const allowed = createWebsiteResourceSets({
      client,
      outputDir: '/tmp/unused',
      allowDeploymentUpdates: true,
    });
    const site = storedWebsite({}, { 'demo.reconcilekit.io/version': '2' });
    const denyCtx = new ReconcileContext();
    updateAllowed.install(denyCtx);
    await sets[1]?.initCtx(denyCtx, site);
    expect(updateAllowed.is(denyCtx)).toBe(false);
    const allowCtx = new ReconcileContext();
    updateAllowed.install(allowCtx);
    await allowed[1]?.initCtx(allowCtx, site);
    expect(updateAllowed.is(allowCtx)).toBe(true);
    const v1Ctx = new ReconcileContext();
    updateAllowed.install(v1Ctx);
    await allowed[0]?.initCtx(v1Ctx, storedWebsite());
    expect(updateAllowed.is(v1Ctx)).toBe(false);
  });
});

describe('operator options', () => {
  it('reads flags first, then the environment, then defaults', () => {
    expect(parseOperatorOptions([], {})).toEqual({
      outputDir: 'website-pages',
      allowDeploymentUpdates: false,
      installCrd: false,
      workers: 2,
      health: { host: '127.0.0.1', port: 8080 },
    });
    const options = parseOperatorOptions(
      [
        '--output-dir',
        '/pages',
        '--allow-deployment-updates',
        '--health-address',
        '0.0.0.0:9090',
        '--workers',
        '4',
      ],
      { WEBSITE_OUTPUT_DIR: '/ignored', POD_NAMESPACE: 'ops', POD_NAME: 'op-1', WATCH_NAMESPACE: 'sites' },
    );
    expect(options).toEqual({
      outputDir: '/pages',
      allowDeploymentUpdates: true,
      installCrd: false,
      workers: 4,
      namespace: 'sites',
      leaderElectionNamespace: 'ops',
      identity: 'op-1',
      health: { host: '0.0.0.0', port: 9090 },
    });
  });

  it('rejects a bad health address, bad worker counts and unknown flags with a clear message', () => {
    expect(() => parseOperatorOptions(['--health-address', 'nope'], {})).toThrow(/host:port/);
    expect(() => parseOperatorOptions(['--workers', '0'], {})).toThrow(/positive integer/);
    expect(() => parseOperatorOptions(['--frobnicate'], {})).toThrow();
    expect(parseOperatorOptions(['--health-address', 'off'], {}).health).toBeUndefined();
  });
});
