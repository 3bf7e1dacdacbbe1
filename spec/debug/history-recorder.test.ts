import { describe, expect, it, vi } from 'vitest';
import { describeChange, TRACE_MAX_NAMES } from '../../lib/context/pass-trace.js';
import { TriggerLedger, TRIGGERS } from '../../lib/debug/pass-trigger.js';
import {
  DEBUG_DETAIL_PASSES,
  DEBUG_DETAIL_WINDOW_MS,
  DEBUG_ERROR_CHARS,
  DEBUG_NOTIFY_INTERVAL_MS,
  DEBUG_NOTIFY_MAX_OBJECTS,
  DEFAULT_DEBUG_MAX_OBJECTS,
  HistoryRecorder,
  type PassRecord,
} from '../../lib/debug/history-recorder.js';

function pass(n: number, extra: Partial<PassRecord> = {}): PassRecord {
  return { startedAt: n, durationMs: 1, result: 'success', attempt: 0, deleting: false, ...extra };
}

describe('HistoryRecorder', () => {
  it('keeps the last passesPerObject passes of an object, oldest first', () => {
    const h = new HistoryRecorder({ passesPerObject: 3 });
    for (let i = 1; i <= 7; i++) h.record('c', 'ns/a', pass(i));
    expect(h.history('c', 'ns/a')?.passes.map((p) => p.startedAt)).toEqual([5, 6, 7]);
    expect(h.objects()[0]).toMatchObject({ key: 'ns/a', startedAt: 7, passCount: 7 });
  });

  it('caps objects globally, evicting the least recently reconciled', () => {
    const h = new HistoryRecorder({ maxObjects: 2 });
    h.record('c', 'a', pass(1));
    h.record('c', 'b', pass(2));
    h.record('c', 'a', pass(3));
    h.record('c', 'c', pass(4));
    expect(h.size).toBe(2);
    expect(h.history('c', 'b')).toBeUndefined();
    expect(h.objects().map((o) => o.key)).toEqual(['c', 'a']);
  });

  it('forgets a deleted object', () => {
    const h = new HistoryRecorder();
    h.record('c', 'a', pass(1));
    h.forget('c', 'a');
    expect(h.size).toBe(0);
    expect(h.objects()).toEqual([]);
  });

  it('holds 10,000 objects within the default cap and searches them by name', () => {
    const h = new HistoryRecorder();
    for (let i = 0; i < DEFAULT_DEBUG_MAX_OBJECTS + 500; i++) h.record('c', `ns/obj-${i}`, pass(i));
    expect(h.size).toBe(DEFAULT_DEBUG_MAX_OBJECTS);
    expect(h.history('c', 'ns/obj-0')).toBeUndefined();
    expect(h.objects('obj-10499').map((o) => o.key)).toEqual(['ns/obj-10499']);
    expect(h.objects('', 50)).toHaveLength(50);
  });

  it('cuts very long error messages', () => {
    const h = new HistoryRecorder();
    h.record('c', 'a', pass(1, { result: 'error', error: 'x'.repeat(1_000_000) }));
    const error = h.history('c', 'a')?.passes[0]?.error ?? '';
    expect(error.length).toBe(DEBUG_ERROR_CHARS + 1);
    expect(error.endsWith('…')).toBe(true);
  });

  it('tells subscribers in batches after the pass (the latest pass of each key), and stops after unsubscribe', () => {
    vi.useFakeTimers();
    try {
      const h = new HistoryRecorder();
      const seen: string[][] = [];
      const off = h.subscribe((batch) => seen.push(batch.map((s) => `${s.key}@${String(s.startedAt)}`)));
      h.record('c', 'a', pass(1));
      h.record('c', 'b', pass(2));
      h.record('c', 'a', pass(3));
      expect(seen).toEqual([]); // never from inside a pass
      vi.advanceTimersByTime(DEBUG_NOTIFY_INTERVAL_MS);
      expect(seen).toEqual([['b@2', 'a@3']]);
      for (let i = 0; i < DEBUG_NOTIFY_MAX_OBJECTS + 50; i++) h.record('c', `k${String(i)}`, pass(10 + i));
      vi.advanceTimersByTime(DEBUG_NOTIFY_INTERVAL_MS);
      expect(seen[1]).toHaveLength(DEBUG_NOTIFY_MAX_OBJECTS); // the most recent; the page's poll has the rest
      expect(seen[1]?.at(-1)).toBe(
        `k${String(DEBUG_NOTIFY_MAX_OBJECTS + 49)}@${String(DEBUG_NOTIFY_MAX_OBJECTS + 59)}`,
      );
      h.record('c', 'late', pass(1000));
      off();
      vi.advanceTimersByTime(DEBUG_NOTIFY_INTERVAL_MS);
      expect(seen).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a bad bound with a typed error naming it', () => {
    expect(() => new HistoryRecorder({ maxObjects: 0 })).toThrow(/maxObjects must be a positive integer/);
  });

  it('keeps per-resource detail on the newest DEBUG_DETAIL_PASSES passes only', () => {
    const h = new HistoryRecorder({ passesPerObject: 8 });
    for (let i = 1; i <= 11; i++) {
      h.record('c', 'ns/a', pass(i, { resources: [{ resource: 'r', steps: { getCurrentState: i } }] }));
    }
    const passes = h.history('c', 'ns/a')?.passes ?? [];
    expect(passes.map((p) => p.startedAt)).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    const detailed = passes.filter((p) => p.resources !== undefined).map((p) => p.startedAt);
    expect(detailed).toEqual([7, 8, 9, 10, 11].slice(-DEBUG_DETAIL_PASSES));
    expect(h.objects()[0]).not.toHaveProperty('resources');
  });
});

describe('HistoryRecorder.wantsDetail', () => {
  it('is on while a stream listens or within DEBUG_DETAIL_WINDOW_MS of the last request, off otherwise', () => {
    const h = new HistoryRecorder();
    expect(h.wantsDetail(1_000)).toBe(false);
    h.viewed(1_000);
    expect(h.wantsDetail(1_000 + DEBUG_DETAIL_WINDOW_MS - 1)).toBe(true);
    expect(h.wantsDetail(1_000 + DEBUG_DETAIL_WINDOW_MS)).toBe(false);
    const stop = h.subscribe(() => undefined);
    expect(h.wantsDetail(1_000 + 10 * DEBUG_DETAIL_WINDOW_MS)).toBe(true);
    stop();
    expect(h.wantsDetail(1_000 + 10 * DEBUG_DETAIL_WINDOW_MS)).toBe(false);
  });
});

describe('HistoryRecorder events', () => {
  const ev = (reason: string, at: number, message = 'm') => ({
    controller: 'c',
    type: 'Warning',
    reason,
    message,
    object: 'Widget ns/a',
    at,
  });

  it('keeps maxEvents Events newest first, folding identical ones into a count', () => {
    const h = new HistoryRecorder({ maxEvents: 3 });
    h.recordEvent(ev('A', 1));
    h.recordEvent(ev('B', 2));
    h.recordEvent(ev('A', 3));
    expect(h.events().map((e) => [e.reason, e.count, e.at])).toEqual([
      ['A', 2, 3],
      ['B', 1, 2],
    ]);
    h.recordEvent(ev('C', 4));
    h.recordEvent(ev('D', 5));
    expect(h.events().map((e) => e.reason)).toEqual(['D', 'C', 'A']);
    h.recordEvent(ev('E', 6, 'x'.repeat(DEBUG_ERROR_CHARS * 3)));
    expect(h.events()[0]?.message.length).toBe(DEBUG_ERROR_CHARS + 1);
    expect(() => new HistoryRecorder({ maxEvents: 0 })).toThrow(/maxEvents must be a positive integer/);
  });
});

describe('describeChange', () => {
  it('counts lists, maps, sets and single objects; names come from metadata or name, never contents', () => {
    const cm = (name: string) => ({ metadata: { name, namespace: 'ns' }, data: { password: 'hunter2' } });
    expect(describeChange('create', [cm('a'), cm('b')])).toEqual({
      part: 'create',
      count: 2,
      names: ['ns/a', 'ns/b'],
    });
    expect(describeChange('update', cm('one'))).toEqual({ part: 'update', count: 1, names: ['ns/one'] });
    expect(describeChange('delete', new Map([['k', { name: 'bucket' }]]))).toEqual({
      part: 'delete',
      count: 1,
      names: ['bucket'],
    });
    expect(describeChange('delete', new Set(['secret-string']))).toEqual({ part: 'delete', count: 1 });
    expect(describeChange('update', 'raw contents')).toEqual({ part: 'update' });
    expect(describeChange('update', null)).toEqual({ part: 'update' });
    const many = Array.from({ length: 12 }, (_, i) => cm(`n${i}`));
    expect(describeChange('create', many).names).toHaveLength(TRACE_MAX_NAMES);
    expect(JSON.stringify(describeChange('create', [cm('x')]))).not.toContain('hunter2');
  });
});

describe('TriggerLedger', () => {
  it('keeps the latest trigger per key, noteIfNone never overrides, take consumes (start when none)', () => {
    const t = new TriggerLedger();
    t.note('k', TRIGGERS.add);
    t.note('k', TRIGGERS.update);
    t.noteIfNone('k', TRIGGERS.retry);
    expect(t.take('k')).toEqual({ reason: 'watch', event: 'update' });
    expect(t.take('k')).toEqual({ reason: 'start' });
    t.noteIfNone('k', TRIGGERS.retry);
    expect(t.take('k')).toBe(TRIGGERS.retry);
    expect(t.size).toBe(0);
  });

  it('keeps at most max waiting keys (the rest run with reason start), updating those it holds', () => {
    const t = new TriggerLedger(2);
    t.note('a', TRIGGERS.add);
    t.note('b', TRIGGERS.add);
    t.note('c', TRIGGERS.add);
    t.noteIfNone('d', TRIGGERS.retry);
    t.note('a', TRIGGERS.delete);
    expect(t.size).toBe(2);
    expect(t.take('a')).toBe(TRIGGERS.delete);
    expect(t.take('c')).toBe(TRIGGERS.start);
    expect(t.waiting(10)).toEqual([{ key: 'b', trigger: TRIGGERS.add }]);
  });
});
