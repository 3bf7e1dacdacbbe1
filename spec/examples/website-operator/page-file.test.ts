/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRUDResource, ReconcileContext } from 'reconcilekit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderPageV1, renderPageV2 } from '../../../examples/website-operator/render-page.js';
import { PageFileOps } from '../../../examples/website-operator/resources/page-file.js';
import { storedWebsite } from './fixtures.js';

describe('PageFileOps (state outside Kubernetes)', () => {
  let dir: string;
  let ops: PageFileOps;
  const ctx = new ReconcileContext();
  const site = storedWebsite();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'website-pages-'));
    ops = new PageFileOps({ outputDir: dir, render: renderPageV1 });
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads no current state when the file does not exist', async () => {
    expect(await ops.getCurrentState(ctx, site)).toBeUndefined();
  });

  it('creates the file when missing, then finds nothing to do', async () => {
    const desired = ops.getDesiredState(ctx, site);
    expect(desired.path).toBe(join(dir, 'demo', 'hello.html'));
    const patch = ops.newUpdatePatch(ctx, site, undefined, desired);
    expect(patch?.has('create')).toBe(true);
    expect(patch?.has('update')).toBe(false);
    await ops.applyCreateChange(ctx, site, desired);
    expect(await readFile(desired.path, 'utf8')).toBe(renderPageV1(site));
    const current = await ops.getCurrentState(ctx, site);
    expect(ops.newUpdatePatch(ctx, site, current, desired)).toBeUndefined();
  });

  it('rewrites a file whose content differs from the rendered page', async () => {
    await ops.applyCreateChange(ctx, site, ops.getDesiredState(ctx, site));
    const v2 = new PageFileOps({ outputDir: dir, render: renderPageV2 });
    const desired = v2.getDesiredState(ctx, site);
    const patch = v2.newUpdatePatch(ctx, site, await v2.getCurrentState(ctx, site), desired);
    expect(patch?.has('update')).toBe(true);
    expect(patch?.has('create')).toBe(false);
    await v2.applyUpdateChange(ctx, site, desired);
    expect(await readFile(desired.path, 'utf8')).toBe(renderPageV2(site));
    expect(await readdir(join(dir, 'demo'))).toEqual(['hello.html']);
  });

  it('deletes the file and its namespace directory once empty, through the CRUD flow', async () => {
    const resource = new CRUDResource({ ops });
    await resource.ensureCreated(ctx, site);
    await resource.ensureDeleted(ctx, site);
    expect(await readdir(dir)).toEqual([]);
    await resource.ensureDeleted(ctx, site);
  });

  it('keeps the namespace directory while other pages live in it', async () => {
    await writeFile(join(dir, 'other.txt'), 'x');
    const resource = new CRUDResource({ ops });
    const other = storedWebsite();
    other.metadata = { ...other.metadata, name: 'other' };
    await resource.ensureCreated(ctx, site);
    await resource.ensureCreated(ctx, other);
    await resource.ensureDeleted(ctx, site);
    expect(await readdir(join(dir, 'demo'))).toEqual(['other.html']);
  });
});
