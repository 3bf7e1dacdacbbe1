import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InvalidConfigError, isInvalidConfig } from '../../lib/errors/index.js';
import { Framework } from '../../lib/crud/framework.js';
import {
  DEFAULT_PAUSE_ANNOTATIONS,
  DEFAULT_RESYNC_PERIOD_MS,
  DEFAULT_WORKERS,
  DEFAULT_GRACEFUL_SHUTDOWN_MS,
} from '../../lib/engine/defaults.js';
import { resolveFrameworkConfig } from '../../lib/crud/resolve-config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { ResourceRouter } from '../../lib/crud/router/resource-router.js';

const resource = { name: 'noop', ensureCreated: async () => {}, ensureDeleted: async () => {} };
const sets = [new ResourceSet({ resources: [resource] })];
const base = { name: 'web', resourceSets: sets, logger: createLogger({ silent: true }) };

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('Framework config', () => {
  it('applies the documented defaults', () => {
    const c = resolveFrameworkConfig(base);
    expect(c.workers).toBe(DEFAULT_WORKERS);
    expect(c.resyncPeriodMs).toBe(DEFAULT_RESYNC_PERIOD_MS);
    expect(c.finalizer).toBe('reconcilekit.io/web');
    expect(c.pauseAnnotations).toEqual(DEFAULT_PAUSE_ANNOTATIONS);
    expect(c.gracefulShutdownMs).toBe(DEFAULT_GRACEFUL_SHUTDOWN_MS);
    expect(c.leaderElection).toBe(false);
    expect(c.healthServer).toBe(false);
    expect(c.registry).toBeInstanceOf(Registry);
    expect(c.router).toBeInstanceOf(ResourceRouter);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no name', { name: undefined }, /config\.name must be a non-empty string/],
    ['a name with a slash', { name: 'a/b' }, /config\.name must be at most 63/],
    [
      'no router and no sets',
      { resourceSets: undefined },
      /config\.resourceRouter or config\.resourceSets must be given/,
    ],
    ['both router and sets', { resourceRouter: new ResourceRouter({ resourceSets: sets }) }, /exclusive/],
    ['empty resource sets', { resourceSets: [] }, /config\.resourceSets must not be empty/],
    [
      'a resource without kind',
      { resource: { apiVersion: 'v1' } },
      /config\.resource\.kind must be a non-empty string/,
    ],
    ['zero workers', { workers: 0 }, /config\.workers must be an integer >= 1/],
    ['fractional workers', { workers: 1.5 }, /config\.workers must be an integer >= 1/],
    ['negative resync', { resyncPeriodMs: -1 }, /config\.resyncPeriodMs must be a finite number/],
    ['an invalid finalizer', { finalizer: 'has spaces/x y' }, /config\.finalizer must be a qualified name/],
    ['pause annotations not a list', { pauseAnnotations: 'x' }, /config\.pauseAnnotations must be an array/],
    [
      'an empty pause annotation',
      { pauseAnnotations: [''] },
      /config\.pauseAnnotations\[0\] must be a non-empty string/,
    ],
    ['a bad logger', { logger: {} }, /config\.logger must have debug, info, warn, error and child/],
    ['a bad registry', { registry: {} }, /config\.registry must be a prom-client Registry/],
    [
      'leader election without lease name',
      { leaderElection: { namespace: 'x' } },
      /leaseName must be a non-empty string/,
    ],
    [
      'leader election with inverted timings',
      { leaderElection: { leaseName: 'l', namespace: 'n', leaseDurationMs: 1000, renewDeadlineMs: 2000 } },
      /leaseDurationMs > renewDeadlineMs > retryPeriodMs/,
    ],
    [
      'a bad health port',
      { healthServer: { port: 70000 } },
      /config\.healthServer\.port must be an integer 0\.\.65535/,
    ],
    [
      'owns without resource',
      { owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      /config\.owns needs config\.resource/,
    ],
    [
      'a crd that is not one',
      { crd: { kind: 'Pod', metadata: { name: 'x' } } },
      /config\.crd must be an apiextensions/,
    ],
    [
      'a bad kubeConfig',
      { kubeConfig: {} },
      /config\.kubeConfig must be a @kubernetes\/client-node KubeConfig/,
    ],
    [
      'a negative reconcile timeout',
      { reconcileTimeoutMs: -5 },
      /config\.reconcileTimeoutMs must be a finite number/,
    ],
  ])('rejects %s with a message saying what to fix', (_name, patch, message) => {
    const attempt = () => new Framework({ ...base, ...patch });
    expect(attempt).toThrow(InvalidConfigError);
    expect(attempt).toThrow(message);
  });

  it('rejects a non-object config', () => {
    expect(() => new Framework(undefined as never)).toThrow(/config must be an object/);
  });

  it('needs a watched resource for finalizers', () => {
    let caught: unknown;
    try {
      new Framework({ ...base, kubeConfig: kubeConfig() });
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect(String(caught)).toMatch(/config\.finalizer needs config\.resource/);
  });

  it('builds without a server when it only reconciles what updateFunc feeds it', () => {
    const fw = new Framework({ ...base, finalizer: false, events: false });
    expect(fw.synced).toBe(false);
    expect(fw.ready).toBe(false);
    expect(fw.metrics).toBeInstanceOf(Registry);
  });
});
