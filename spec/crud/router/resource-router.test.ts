import { describe, expect, it } from 'vitest';
import { isExecutionFailed } from '../../../lib/errors/execution-failed-error.js';
import { isInvalidConfig } from '../../../lib/errors/invalid-config-error.js';
import { isNoResourceSet } from '../../../lib/errors/no-resource-set-error.js';
import { describeObject, ResourceRouter } from '../../../lib/crud/router/resource-router.js';
import { ResourceSet } from '../../../lib/crud/router/resource-set.js';
import { capturedLogger, recordingResource } from '../resource/helpers.js';

type Versioned = {
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
};

const versionOf = (o: Versioned) => o.metadata?.labels?.version;
const setFor = (version: string) =>
  new ResourceSet<Versioned>({
    resources: [recordingResource(`r-${version}`, [])],
    handles: (o) => versionOf(o) === version,
  });
const objAt = (version?: string): Versioned => ({
  kind: 'Memcached',
  metadata: { name: 'm1', namespace: 'ns', ...(version === undefined ? {} : { labels: { version } }) },
});

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('ResourceRouter', () => {
  const v1 = setFor('1');
  const v2 = setFor('2');
  const router = new ResourceRouter({ resourceSets: [v1, v2] });

  it('returns the single set handling the object', () => {
    expect(router.resourceSet(objAt('1'))).toBe(v1);
    expect(router.resourceSet(objAt('2'))).toBe(v2);
  });

  it('throws NoResourceSetError, with a debug line, when no set handles the object', async () => {
    const { logger, lines } = capturedLogger();
    const quiet = new ResourceRouter({ resourceSets: [v1, v2], logger });
    const err = caught(() => quiet.resourceSet(objAt('3')));
    expect(isNoResourceSet(err)).toBe(true);
    expect(isExecutionFailed(err)).toBe(false);
    expect((err as Error).message).toBe('no resource set handles Memcached ns/m1');
    expect(await lines()).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'no resource set for reconciled object',
        object: 'Memcached ns/m1',
      }),
    ]);
  });

  it('throws ExecutionFailedError when several sets handle the object', () => {
    const all = new ResourceSet<Versioned>({ resources: [recordingResource('any', [])] });
    const err = caught(() => new ResourceRouter({ resourceSets: [v1, all, v2] }).resourceSet(objAt('2')));
    expect(isExecutionFailed(err)).toBe(true);
    expect(isNoResourceSet(err)).toBe(false);
    expect((err as Error).message).toBe(
      '2 resource sets handle Memcached ns/m1; exactly one must: make their handles() predicates exclusive',
    );
  });

  it('routes objects without a version to a legacy set that handles them', () => {
    const legacy = new ResourceSet<Versioned>({
      resources: [recordingResource('legacy', [])],
      handles: (o) => versionOf(o) === undefined,
    });
    const versioned = new ResourceRouter({ resourceSets: [v1, legacy] });
    expect(versioned.resourceSet(objAt())).toBe(legacy);
  });

  it('exposes its sets in order', () => {
    expect(router.resourceSets()).toEqual([v1, v2]);
  });

  const bad: [string, unknown, string][] = [
    ['no config', undefined, 'config must be an object with resourceSets'],
    ['no sets', {}, 'config.resourceSets must not be empty: give the router at least one ResourceSet'],
    [
      'empty sets',
      { resourceSets: [] },
      'config.resourceSets must not be empty: give the router at least one ResourceSet',
    ],
    [
      'a set that is not a ResourceSet',
      { resourceSets: [setFor('1'), { resources: [] }] },
      'config.resourceSets[1] must be a ResourceSet (handles, resources, initCtx); build it with new ResourceSet(...)',
    ],
  ];
  it.each(bad)('%s → InvalidConfigError saying what to fix', (_label, config, message) => {
    const err = caught(() => new ResourceRouter(config as never));
    expect(isInvalidConfig(err)).toBe(true);
    expect((err as Error).message).toBe(message);
  });
});

describe('describeObject', () => {
  it.each([
    [{ kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } }, 'Pod ns/p'],
    [{ metadata: { name: 'n' } }, 'n'],
    [{ kind: 'Namespace', metadata: { name: 'n', namespace: '' } }, 'Namespace n'],
    [{}, '<unnamed>'],
    [null, 'object'],
    ['text', 'string'],
  ])('%j → %s', (obj, text) => {
    expect(describeObject(obj)).toBe(text);
  });
});
