import { describe, expect, it } from 'vitest';
import {
  DEBUG_ERROR_CHARS,
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

  it('tells subscribers about each pass and stops after unsubscribe', () => {
    const h = new HistoryRecorder();
    const seen: string[] = [];
    const off = h.subscribe((s) => seen.push(s.key));
    h.record('c', 'a', pass(1));
    off();
    h.record('c', 'b', pass(2));
    expect(seen).toEqual(['a']);
  });

  it('rejects a bad bound with a typed error naming it', () => {
    expect(() => new HistoryRecorder({ maxObjects: 0 })).toThrow(/maxObjects must be a positive integer/);
  });
});
