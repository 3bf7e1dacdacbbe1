import { describe, expect, it } from 'vitest';
import {
  areAllConditionsWithStatus,
  boundConditionMessage,
  boundConditionReason,
  findConditionByStatus,
  isAnyConditionWithStatus,
  isConditionPresentAndEqual,
  isValidConditionReason,
  MAX_CONDITION_MESSAGE_LENGTH,
  upsertCondition,
  validateConditionType,
  type StatusCondition,
} from '../../lib/index.js';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const t1 = new Date('2026-01-01T00:05:00.000Z');

describe('upsertCondition (C14)', () => {
  it('same status twice: changed false and lastTransitionTime kept', () => {
    const first = upsertCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'm' },
      t0,
    );
    expect(first.changed).toBe(true);
    const again = upsertCondition(
      first.conditions,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'm' },
      t1,
    );
    expect(again.changed).toBe(false);
    expect(again.conditions).toEqual(first.conditions);
    expect(again.conditions).not.toBe(first.conditions);
  });

  it('reason change only: changed true, lastTransitionTime kept', () => {
    const first = upsertCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: '' },
      t0,
    );
    const next = upsertCondition(
      first.conditions,
      { type: 'Ready', status: 'False', reason: 'Waiting', message: '' },
      t1,
    );
    expect(next.changed).toBe(true);
    expect(next.conditions[0]!.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });

  it('status change: changed true and lastTransitionTime = now; other conditions untouched', () => {
    const other: StatusCondition = {
      type: 'Synced',
      status: 'True',
      reason: 'Ok',
      message: '',
      lastTransitionTime: '2025-01-01T00:00:00Z',
    };
    const first = upsertCondition(
      [other],
      { type: 'Ready', status: 'False', reason: 'Pending', message: '' },
      t0,
    );
    const next = upsertCondition(
      first.conditions,
      { type: 'Ready', status: 'True', reason: 'Done', message: '' },
      t1,
    );
    expect(next.changed).toBe(true);
    expect(next.conditions).toEqual([
      other,
      {
        type: 'Ready',
        status: 'True',
        reason: 'Done',
        message: '',
        lastTransitionTime: '2026-01-01T00:05:00Z',
      },
    ]);
  });

  it('an observedGeneration change counts as a change', () => {
    const first = upsertCondition(
      undefined,
      { type: 'Ready', status: 'True', reason: 'Ok', message: '', observedGeneration: 1 },
      t0,
    );
    expect(
      upsertCondition(
        first.conditions,
        { type: 'Ready', status: 'True', reason: 'Ok', message: '', observedGeneration: 2 },
        t1,
      ).changed,
    ).toBe(true);
  });
});

describe('condition queries (seed 004 vocabulary)', () => {
  const list: StatusCondition[] = [
    { type: 'A', status: 'True', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'B', status: 'False', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'C', status: 'False', reason: 'R2', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ];
  it('findConditionByStatus returns the first with that status', () => {
    expect(findConditionByStatus(list, 'False')?.type).toBe('B');
    expect(findConditionByStatus(list, 'Unknown')).toBeUndefined();
    expect(findConditionByStatus(undefined, 'True')).toBeUndefined();
  });
  it('isConditionPresentAndEqual', () => {
    expect(isConditionPresentAndEqual(list, 'A', 'True')).toBe(true);
    expect(isConditionPresentAndEqual(list, 'A', 'False')).toBe(false);
    expect(isConditionPresentAndEqual(list, 'Z', 'True')).toBe(false);
  });
  it('isAnyConditionWithStatus / areAllConditionsWithStatus (empty: any false, all true as the seed)', () => {
    expect(isAnyConditionWithStatus(list, 'True')).toBe(true);
    expect(isAnyConditionWithStatus(list, 'Unknown')).toBe(false);
    expect(isAnyConditionWithStatus([], 'True')).toBe(false);
    expect(areAllConditionsWithStatus(list, 'False')).toBe(false);
    expect(areAllConditionsWithStatus(list.slice(1), 'False')).toBe(true);
    expect(areAllConditionsWithStatus([], 'True')).toBe(true);
    expect(areAllConditionsWithStatus(undefined, 'True')).toBe(true);
  });
});

describe('condition names and limits', () => {
  it('validateConditionType accepts metav1 qualified names and rejects the rest with what to use', () => {
    for (const ok of ['Ready', 'example.com/Synced', 'a', 'Tunnel_1.x', 'a'.repeat(63)])
      expect(() => {
        validateConditionType(ok);
      }).not.toThrow();
    for (const bad of [
      '',
      'has space',
      'Ready!',
      '-x',
      'a'.repeat(64),
      'Example.COM/Ready',
      `${'a'.repeat(254)}/R`,
    ]) {
      expect(() => {
        validateConditionType(bad);
      }).toThrow(/condition type|non-empty/);
    }
    expect(() => {
      validateConditionType(42);
    }).toThrow(/non-empty string/);
  });
  it('isValidConditionReason and boundConditionReason', () => {
    expect(isValidConditionReason('Created')).toBe(true);
    expect(isValidConditionReason('R'.repeat(1025))).toBe(false);
    expect(boundConditionReason('Created')).toBe('Created');
    expect(boundConditionReason('in progress')).toBe('InProgress');
    expect(boundConditionReason('Configuring Tunnel...')).toBe('ConfiguringTunnel');
    expect(boundConditionReason('42 things')).toBe('Things');
    expect(boundConditionReason('!!!', 'Fallback')).toBe('Fallback');
    expect(boundConditionReason(undefined, 'Fallback')).toBe('Fallback');
    expect(boundConditionReason('R'.repeat(2000))).toHaveLength(1024);
    expect(isValidConditionReason(boundConditionReason(`A${'b:'.repeat(600)}`))).toBe(true);
  });
  it('boundConditionMessage cuts to the API limit', () => {
    expect(boundConditionMessage('short')).toBe('short');
    const cut = boundConditionMessage('x'.repeat(MAX_CONDITION_MESSAGE_LENGTH + 1));
    expect(cut.length).toBeLessThanOrEqual(MAX_CONDITION_MESSAGE_LENGTH);
    expect(cut.endsWith('… (truncated)')).toBe(true);
    expect(boundConditionMessage(undefined)).toBe('');
    expect(boundConditionMessage({ a: 1 })).toBe('{"a":1}');
  });
});
