import { describe, expect, it } from 'vitest';
import { RemovedFinalizerMemory } from '../../lib/engine/removed-finalizer-memory.js';

describe('RemovedFinalizerMemory', () => {
  it('remembers a removal until the TTL passes, then forgets it', () => {
    let now = 1_000;
    const memory = new RemovedFinalizerMemory(500, () => now);
    memory.remember('uid-1');
    expect(memory.has('uid-1')).toBe(true);
    expect(memory.has('uid-2')).toBe(false);
    now += 499;
    expect(memory.has('uid-1')).toBe(true);
    now += 1;
    expect(memory.has('uid-1')).toBe(false);
  });

  it('purges expired entries when new ones are recorded', () => {
    let now = 0;
    const memory = new RemovedFinalizerMemory(10, () => now);
    memory.remember('a');
    memory.remember('b');
    now = 20;
    memory.remember('c');
    expect(memory.size).toBe(1);
  });
});
