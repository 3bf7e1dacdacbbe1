import { describe, expect, it } from 'vitest';
import { DEFAULT_PAUSE_ANNOTATIONS } from '../../lib/engine/defaults.js';
import { isPaused, pauseAnnotation } from '../../lib/engine/pause.js';

const withAnnotations = (annotations?: Record<string, string>) => ({ metadata: { annotations } });

describe('pause annotations', () => {
  it.each([
    ['no object', undefined],
    ['no annotations', withAnnotations()],
    ['an unrelated key with an empty value', withAnnotations({ other: '' })],
    ['an empty key set to true', withAnnotations({ '': 'true' })],
    ['an empty key with an empty value', withAnnotations({ '': '' })],
    ['reconcilekit.io/paused set to ""', withAnnotations({ 'reconcilekit.io/paused': '' })],
    ['reconcilekit.io/paused set to "false"', withAnnotations({ 'reconcilekit.io/paused': 'false' })],
    ['cluster.x-k8s.io/paused set to ""', withAnnotations({ 'cluster.x-k8s.io/paused': '' })],
    ['cluster.x-k8s.io/paused set to "false"', withAnnotations({ 'cluster.x-k8s.io/paused': 'false' })],
    [
      'reconcilekit.io/paused set to "TRUE" (exact value only)',
      withAnnotations({ 'reconcilekit.io/paused': 'TRUE' }),
    ],
  ])('is not paused with %s', (_name, obj) => {
    expect(isPaused(obj, DEFAULT_PAUSE_ANNOTATIONS)).toBe(false);
  });

  it.each(['reconcilekit.io/paused', 'cluster.x-k8s.io/paused'])('is paused by %s: "true"', (key) => {
    const obj = withAnnotations({ other: '', [key]: 'true' });
    expect(pauseAnnotation(obj, DEFAULT_PAUSE_ANNOTATIONS)).toEqual({ key, value: 'true' });
  });

  it('honours only the configured keys', () => {
    const obj = withAnnotations({ 'example.com/hold': 'true', 'reconcilekit.io/paused': 'true' });
    expect(pauseAnnotation(obj, ['example.com/hold'])).toEqual({ key: 'example.com/hold', value: 'true' });
    expect(isPaused(obj, [])).toBe(false);
  });
});
