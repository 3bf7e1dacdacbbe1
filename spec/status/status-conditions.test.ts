import { describe, expect, it } from 'vitest';
import {
  getCondition,
  isConditionTrue,
  removeCondition,
  setCondition,
} from '../../lib/status/status-conditions.js';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const t1 = new Date('2026-01-01T00:05:00.000Z');

describe('status conditions', () => {
  it('appends a new condition with a transition time', () => {
    const list = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'wait' },
      t0,
    );
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Pending',
        message: 'wait',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('keeps the transition time when only reason or message change', () => {
    const first = setCondition([], { type: 'Ready', status: 'True', reason: 'A', message: 'a' }, t0);
    const second = setCondition(first, { type: 'Ready', status: 'True', reason: 'B', message: 'b' }, t1);
    expect(second).toHaveLength(1);
    expect(getCondition(second, 'Ready')).toMatchObject({
      reason: 'B',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });

  it('moves the transition time when the status changes, without mutating the input', () => {
    const first = setCondition([], { type: 'Ready', status: 'True', reason: 'A', message: 'a' }, t0);
    const second = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'A', message: 'a', observedGeneration: 3 },
      t1,
    );
    expect(first[0]?.status).toBe('True');
    expect(second[0]).toMatchObject({
      status: 'False',
      observedGeneration: 3,
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
    expect(isConditionTrue(first, 'Ready')).toBe(true);
    expect(isConditionTrue(second, 'Ready')).toBe(false);
  });

  it('setting an identical condition twice yields an equal list (no-op writes can be skipped)', () => {
    const input = { type: 'Synced', status: 'True' as const, reason: 'Ok', message: '' };
    const once = setCondition([], input, t0);
    expect(setCondition(once, input, t1)).toEqual(once);
  });

  it('removes a condition by type', () => {
    const list = setCondition([], { type: 'Ready', status: 'True', reason: 'A', message: '' }, t0);
    expect(removeCondition(list, 'Ready')).toEqual([]);
    expect(getCondition(undefined, 'Ready')).toBeUndefined();
  });
});
