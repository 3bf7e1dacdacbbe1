// The package imported by its own name from inside the repository (self-reference through package.json
// `exports`, resolved to the build as a user's code resolves it): every entry loads, the root re-exports each
// front end's entry whole, and the engine's internals are in reconcilekit/engine only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
const ENTRIES = Object.keys(pkg.exports)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? 'reconcilekit' : `reconcilekit/${k.slice(2)}`));
/** Entries the root re-exports whole. */
const FRONT_ENDS = [
  'crud',
  'controller',
  'informer-controller',
  'phases',
  'bound',
  'declarative',
  'operator',
  'plan',
  'status',
  'sharding',
];
const ENGINE_INTERNALS = [
  'ControllerCore',
  'resolveCoreConfig',
  'informerKey',
  'groupKind',
  'RemovedFinalizerMemory',
];

const load = (entry: string) => import(entry) as Promise<Record<string, unknown>>;

describe('reconcilekit by its own name', () => {
  it.each(ENTRIES)('%s loads and exports something', async (entry) => {
    expect(Object.keys(await load(entry)).length).toBeGreaterThan(0);
  });

  it.each(FRONT_ENDS)('the root re-exports reconcilekit/%s whole', async (area) => {
    const [root, sub] = await Promise.all([load('reconcilekit'), load(`reconcilekit/${area}`)]);
    for (const [name, value] of Object.entries(sub)) expect(root[name], name).toBe(value);
  });

  it('keeps the engine internals out of the root and in reconcilekit/engine', async () => {
    const [root, engine] = await Promise.all([load('reconcilekit'), load('reconcilekit/engine')]);
    for (const name of ENGINE_INTERNALS) {
      expect(root[name], name).toBeUndefined();
      expect(engine[name], name).toBeDefined();
    }
    // What operator authors use from the engine stays in the root too, as the same objects.
    for (const name of ['TerminalError', 'requeueAfter', 'predicates', 'clientKey']) {
      expect(root[name], name).toBe(engine[name]);
    }
  });

  it('names the two API errors apart: the client’s ApiError in the root, the server’s StatusError', async () => {
    const [root, server] = await Promise.all([load('reconcilekit'), load('reconcilekit/apiserver')]);
    expect(root.ApiError).toBeDefined();
    expect(server.StatusError).toBeDefined();
    expect(server.StatusError).not.toBe(root.ApiError);
    expect(root.StatusError).toBeUndefined();
  });
});
