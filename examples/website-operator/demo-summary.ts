import type { ChildKind, ObservedChange, SiteSnapshot } from './demo-tracker.js';

const NAMES: Record<ObservedChange['kind'], string> = {
  ConfigMap: 'ConfigMap',
  Deployment: 'Deployment',
  Service: 'Service',
  PageFile: 'page file',
  Website: 'finalizer',
  Status: 'status',
};

function names(kinds: Iterable<ObservedChange['kind']>): string {
  return [...kinds].map((k) => NAMES[k]).join(', ');
}

/** What the demo found at the end: per Website what was created, updated and cleaned up. */
export interface DemoOutcome {
  /** Summary lines to print. */
  lines: string[];
  /** Websites that exist, are Ready for their current generation and have all four children. */
  reconciled: string[];
  /** Deleted Websites with nothing left behind (no child object, no file, no Website). */
  cleanedUp: string[];
  /** Deleted Websites where something was left behind. */
  leftovers: string[];
}

/** Builds the summary from what the tracker observed (never from what the demo expected). */
export function summarise(history: readonly ObservedChange[], sites: readonly SiteSnapshot[]): DemoOutcome {
  const outcome: DemoOutcome = { lines: ['Summary', ''], reconciled: [], cleanedUp: [], leftovers: [] };
  const width = Math.max(...sites.map((s) => s.name.length));
  for (const site of sites) {
    const mine = history.filter((c) => c.site === site.name && c.kind !== 'Status');
    const created = new Set(mine.filter((c) => c.action === 'created').map((c) => c.kind));
    const updated = new Set(mine.filter((c) => c.action === 'updated').map((c) => c.kind));
    const deleted = new Set(mine.filter((c) => c.action === 'deleted').map((c) => c.kind));
    const parts = [`created ${names(created) || 'nothing'}`];
    if (updated.size > 0) parts.push(`updated ${names(updated)}`);
    const present = Object.keys(site.children).length;
    if (site.website === undefined) {
      parts.push(`cleaned up ${names(deleted)}`);
      if (present === 0) outcome.cleanedUp.push(site.name);
      else {
        outcome.leftovers.push(site.name);
        parts.push(`LEFT BEHIND: ${names(Object.keys(site.children) as ChildKind[])}`);
      }
    } else {
      const w = site.website;
      const ready = w.ready === 'True' && w.observedGeneration === w.generation && present === 4;
      if (ready) outcome.reconciled.push(site.name);
      parts.push(
        ready ? `Ready (generation ${w.generation}, set v${w.version})` : `NOT READY: ${w.readyReason}`,
      );
    }
    outcome.lines.push(`  ${site.name.padEnd(width)}  ${parts.join('; ')}`);
  }
  return outcome;
}
