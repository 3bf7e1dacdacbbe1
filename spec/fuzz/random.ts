// A small seeded pseudo-random generator (mulberry32): the same seed gives the same request sequence on
// every machine and Node version, which Math.random cannot promise.

/** Deterministic choices drawn from one 32-bit seed. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** One of `choices`, each drawn in proportion to its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let at = this.next() * total;
    for (const [w, value] of choices) {
      at -= w;
      if (at < 0) return value;
    }
    const last = choices[choices.length - 1];
    if (last === undefined) throw new Error('weighted pick from an empty list');
    return last[1];
  }

  /** Up to `max` distinct items of `items`, in their original order. */
  subset<T>(items: readonly T[], max = items.length): T[] {
    const chosen = items.filter(() => this.chance(0.5));
    return chosen.slice(0, max);
  }
}
