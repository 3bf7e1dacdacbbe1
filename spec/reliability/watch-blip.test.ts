import { beforeAll, describe, expect, it } from 'vitest';
import { runWatchBlip, type WatchBlipFigures } from './scenarios/watch-blip.js';
import { recordFigures } from './support/figures.js';

describe('reliability: a short API hiccup the watches resume from', () => {
  let figures: WatchBlipFigures;

  beforeAll(async () => {
    figures = await runWatchBlip(6_000);
    recordFigures('watch-blip', figures);
  }, 60_000);

  it('reports not-ready while the watches fail and keeps converging afterwards', () => {
    expect(figures.reportedNotReady).toBe(true);
    expect(figures.problems).toEqual([]);
  });

  // Open bug R4b (/work/notes/reliability-bugs.md): the watcher keeps lastSyncError through a resumed watch.
  it.fails('is ready again within 6 s once the watches are healthy [bug R4b]', () => {
    expect(figures.readyAgainMs).toBeLessThan(6_000);
  });
});
