import { describe, expect, it } from 'vitest';
import { isLoopDetected } from '../../../../lib/errors/loop-detected-error.js';
import type { Resource } from '../../../../lib/crud/resource/resource.js';
import { wrapWithMetrics } from '../../../../lib/crud/resource/wrappers/metrics.js';
import { wrapWithRetry } from '../../../../lib/crud/resource/wrappers/retry.js';
import {
  isWrappedResource,
  MAX_WRAP_DEPTH,
  underlying,
  type WrappedResource,
} from '../../../../lib/crud/resource/wrappers/wrapped-resource.js';
import { Registry } from 'prom-client';
import { recordingResource, type Obj } from '../helpers.js';

/** A hand-made wrapper whose target can be rewired, to build cycles. */
function wrapper(name: string): WrappedResource<Obj> & { target?: Resource<Obj> } {
  const w: WrappedResource<Obj> & { target?: Resource<Obj> } = {
    name,
    ensureCreated: () => Promise.resolve(),
    ensureDeleted: () => Promise.resolve(),
    wrapped: () => w.target!,
  };
  return w;
}

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('underlying', () => {
  it('returns a resource that wraps nothing unchanged', () => {
    const plain = recordingResource('p', []);
    expect(isWrappedResource(plain)).toBe(false);
    expect(underlying(plain)).toBe(plain);
  });

  it('unwraps a chain of library wrappers', () => {
    const plain = recordingResource('p', []);
    const [wrapped] = wrapWithMetrics(wrapWithRetry(wrapWithRetry([plain])), { registry: new Registry() });
    expect(isWrappedResource(wrapped!)).toBe(true);
    expect(underlying(wrapped!)).toBe(plain);
  });

  it('unwraps a hand-made chain', () => {
    const plain = recordingResource('p', []);
    const outer = wrapper('outer');
    const inner = wrapper('inner');
    outer.target = inner;
    inner.target = plain;
    expect(underlying(outer)).toBe(plain);
  });

  it.each([1, 3, 10])('reports a cycle of %i wrappers as LoopDetectedError', (length) => {
    const ring = Array.from({ length }, (_, i) => wrapper(`r${i + 1}`));
    ring.forEach((w, i) => {
      w.target = ring[(i + 1) % length];
    });
    const err = caught(() => underlying(ring[0]!));
    expect(isLoopDetected(err)).toBe(true);
    expect((err as Error).message).toMatch(/^wrapper chain of resource "r1" loops back on itself/);
  });

  it('reports a cycle entered after a few hops (r1 → r2 → r3 → r2)', () => {
    const [r1, r2, r3] = [wrapper('r1'), wrapper('r2'), wrapper('r3')];
    r1.target = r2;
    r2.target = r3;
    r3.target = r2;
    expect(isLoopDetected(caught(() => underlying(r1)))).toBe(true);
  });

  it(`follows up to ${MAX_WRAP_DEPTH} distinct wrappers and reports a deeper chain as a loop`, () => {
    const build = (depth: number): Resource<Obj> => {
      let current: Resource<Obj> = recordingResource('end', []);
      for (let i = 0; i < depth; i++) {
        const w = wrapper(`w${i}`);
        w.target = current;
        current = w;
      }
      return current;
    };
    expect(underlying(build(MAX_WRAP_DEPTH)).name).toBe('end');
    expect(isLoopDetected(caught(() => underlying(build(MAX_WRAP_DEPTH + 1))))).toBe(true);
  });
});
