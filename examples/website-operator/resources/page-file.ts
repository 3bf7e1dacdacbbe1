import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Patch, type CRUDResourceOps, type MaybePatch, type ReconcileContext } from 'reconcilekit';
import type { PageRenderer } from '../render-page.js';
import { websiteKey, type Website } from '../website.js';

/** Options of {@link PageFileOps}. */
export interface PageFileOpsOptions {
  /** Directory the pages are published under, as `<dir>/<namespace>/<name>.html`. Required. */
  outputDir: string;
  /** Renders the page (the resource set's version decides how). Required. */
  render: PageRenderer;
}

/** One published page: where it is and what it holds. */
export interface PageFile {
  /** Absolute or output-dir-relative path of the file. */
  path: string;
  /** The file's text. */
  content: string;
}

type State = PageFile | undefined;

function isNodeError(e: unknown, code: string): boolean {
  return e instanceof Error && (e as NodeJS.ErrnoException).code === code;
}

/**
 * The rendered page published as a file — state outside Kubernetes, to show that a CRUD resource can
 * manage anything: the current state is read from disk, the desired state is rendered, and the patch
 * creates, rewrites or removes the file. Writes are atomic (temporary file, then rename), so a reader
 * never sees half a page.
 */
export class PageFileOps implements CRUDResourceOps<Website, State, PageFile> {
  readonly name = 'page-file';

  constructor(private readonly options: PageFileOpsOptions) {}

  /** Where the page of `site` is published. */
  pathOf(site: Website): string {
    const { name, namespace } = websiteKey(site);
    return join(this.options.outputDir, namespace, `${name}.html`);
  }

  async getCurrentState(ctx: ReconcileContext, site: Website): Promise<State> {
    const path = this.pathOf(site);
    try {
      return { path, content: await readFile(path, { encoding: 'utf8', signal: ctx.signal }) };
    } catch (e) {
      if (isNodeError(e, 'ENOENT')) return undefined;
      throw e;
    }
  }

  getDesiredState(_ctx: ReconcileContext, site: Website): PageFile {
    return { path: this.pathOf(site), content: this.options.render(site) };
  }

  newUpdatePatch(
    _ctx: ReconcileContext,
    _site: Website,
    current: State,
    desired: State,
  ): MaybePatch<PageFile> {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<PageFile>().setCreateChange(desired);
    if (current.content === desired.content) return undefined;
    return new Patch<PageFile>().setUpdateChange(desired);
  }

  newDeletePatch(_ctx: ReconcileContext, _site: Website, current: State): MaybePatch<PageFile> {
    return current === undefined ? undefined : new Patch<PageFile>().setDeleteChange(current);
  }

  async applyCreateChange(ctx: ReconcileContext, _site: Website, change: PageFile): Promise<void> {
    await this.write(change, ctx.signal);
    ctx.logger.info('published page file', { path: change.path });
  }

  async applyDeleteChange(ctx: ReconcileContext, _site: Website, change: PageFile): Promise<void> {
    await rm(change.path, { force: true });
    // Remove the namespace directory once its last page is gone; another page keeps it (ENOTEMPTY).
    try {
      await rmdir(dirname(change.path));
    } catch (e) {
      if (!isNodeError(e, 'ENOTEMPTY') && !isNodeError(e, 'ENOENT') && !isNodeError(e, 'EEXIST')) throw e;
    }
    ctx.logger.info('removed page file', { path: change.path });
  }

  async applyUpdateChange(ctx: ReconcileContext, _site: Website, change: PageFile): Promise<void> {
    await this.write(change, ctx.signal);
    ctx.logger.info('rewrote page file', { path: change.path });
  }

  private async write(page: PageFile, signal: AbortSignal): Promise<void> {
    await mkdir(dirname(page.path), { recursive: true });
    const temporary = `${page.path}.${process.pid}.tmp`;
    await writeFile(temporary, page.content, { encoding: 'utf8', signal });
    await rename(temporary, page.path);
  }
}
