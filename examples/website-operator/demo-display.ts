import type { Writable } from 'node:stream';
import { CHILD_KINDS, type ObservedChange, type SiteSnapshot } from './demo-tracker.js';

const CHILD_HEADINGS = {
  ConfigMap: 'CONFIGMAP',
  Deployment: 'DEPLOYMENT',
  Service: 'SERVICE',
  PageFile: 'PAGE FILE',
};
const SYMBOLS = { created: '+', updated: '~', deleted: '-' };

function cell(snapshot: SiteSnapshot, kind: (typeof CHILD_KINDS)[number]): string {
  const child = snapshot.children[kind];
  if (child === undefined) return '-';
  return kind === 'Deployment' ? `yes (${child.detail})` : 'yes';
}

function readyCell(snapshot: SiteSnapshot): string {
  const site = snapshot.website;
  if (site === undefined) return 'deleted';
  if (site.deleting) return 'deleting';
  if (site.ready === '') return 'pending';
  const current = site.observedGeneration === site.generation ? '' : ' (stale)';
  return `${site.ready === 'True' ? 'Ready' : `Not ready: ${site.readyReason}`}${current}`;
}

/** Rows of the live table: one per Website and what exists for it. */
export function tableLines(sites: readonly SiteSnapshot[]): string[] {
  const header = ['WEBSITE', 'SET', ...CHILD_KINDS.map((k) => CHILD_HEADINGS[k]), 'STATUS'];
  const rows = sites.map((s) => [
    s.name,
    s.website === undefined ? '' : `v${s.website.version}`,
    ...CHILD_KINDS.map((k) => cell(s, k)),
    readyCell(s),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** One line per observed change, for the step-by-step (non-TTY) output. */
export function changeLine(change: ObservedChange): string {
  if (change.kind === 'Status') return `    = ${change.site}: status ${change.detail}`;
  const what = change.kind === 'PageFile' ? 'page file' : change.kind;
  const detail = change.detail === '' ? '' : ` (${change.detail})`;
  return `    ${SYMBOLS[change.action]} ${change.site}: ${what} ${change.action}${detail}`;
}

/**
 * Writes the demo's progress. On a terminal: step and change lines scroll above a live table of every
 * Website, redrawn in place. Elsewhere (CI, a pipe): the same step and change lines, nothing redrawn,
 * and the table once at the end.
 */
export class DemoDisplay {
  private tableHeight = 0;
  private lastSites: readonly SiteSnapshot[] | undefined;

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly live: boolean = out.isTTY === true,
  ) {}

  /** A step heading (`==> applying samples`). */
  step(text: string): void {
    this.print([`==> ${text}`]);
  }

  /** A plain line. */
  line(text: string): void {
    this.print([text]);
  }

  /** Prints one line per change; on a terminal also redraws the table below them. */
  update(changes: readonly ObservedChange[], sites: readonly SiteSnapshot[]): void {
    if (this.live) this.print(changes.map(changeLine), sites);
    else if (changes.length > 0) this.print(changes.map(changeLine));
  }

  /** Prints the table once more and stops redrawing it (before the summary). */
  freeze(sites: readonly SiteSnapshot[]): void {
    if (this.live) this.print([], sites);
    else this.print(['', ...tableLines(sites)]);
    this.tableHeight = 0;
    this.lastSites = undefined;
  }

  private print(lines: readonly string[], sites?: readonly SiteSnapshot[]): void {
    let text = '';
    if (this.live && this.tableHeight > 0) text += `\x1b[${this.tableHeight}F\x1b[J`;
    for (const line of lines) text += `${line}\n`;
    if (sites !== undefined) this.lastSites = sites;
    if (this.live && this.lastSites !== undefined) {
      const table = tableLines(this.lastSites);
      text += table.map((l) => `${l}\n`).join('');
      this.tableHeight = table.length;
    }
    this.out.write(text);
  }
}
