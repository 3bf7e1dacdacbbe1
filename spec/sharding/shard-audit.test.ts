// The audit of the multi-process sharding spec (spec/real/sharding.real.test.ts) finds what it must: an
// overlap of two replicas' passes of one key, a pass of a killed replica that was still open, a claim
// found from a pass still running; and nothing in a clean hand-over.
import { describe, expect, it } from 'vitest';
import { auditOverlaps, type PassLine } from '../real/shard-audit.js';

const line = (t: PassLine['t'], replica: string, at: number, extra: Partial<PassLine> = {}): PassLine => ({
  t,
  replica,
  at,
  key: 'ns/a',
  ...extra,
});

describe('shard audit', () => {
  it('passes a clean hand-over and a claim left by an ended pass', () => {
    const lines = [
      line('start', 'r1', 0),
      line('claim', 'r1', 1),
      line('end', 'r1', 10),
      line('start', 'r2', 11),
      line('found', 'r2', 12, { other: 'r1' }),
      line('end', 'r2', 20),
      line('start', 'r1', 30, { key: 'ns/b' }),
    ];
    expect(auditOverlaps(lines, new Map([['r1', 25]]))).toEqual([]);
  });

  it('reports two replicas in a pass of one key at once', () => {
    const lines = [
      line('start', 'r1', 0),
      line('start', 'r2', 5),
      line('end', 'r2', 8),
      line('end', 'r1', 10),
    ];
    expect(auditOverlaps(lines, new Map())).toHaveLength(1);
  });

  it("reports a pass that starts before a killed replica's open pass ended", () => {
    const lines = [line('start', 'r1', 0), line('start', 'r2', 5), line('end', 'r2', 8)];
    expect(auditOverlaps(lines, new Map([['r1', 7]]))).toHaveLength(1);
    expect(auditOverlaps(lines, new Map([['r1', 4]]))).toEqual([]);
  });

  it('reports a claim found from a pass that still runs', () => {
    const lines = [line('start', 'r1', 0), line('end', 'r1', 100), line('found', 'r2', 50, { other: 'r1' })];
    expect(auditOverlaps(lines, new Map()).some((p) => p.includes('found the claim'))).toBe(true);
  });
});
