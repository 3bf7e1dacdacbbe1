import { describe, expect, it } from 'vitest';
import { defineContextKey } from '../../lib/context/context-key.js';
import { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import { capturedLogger } from '../crud/resource/helpers.js';

describe('ReconcileContext', () => {
  it('defaults to a signal that is not aborted and a logger that writes nothing', () => {
    const ctx = new ReconcileContext();
    expect(ctx.signal.aborted).toBe(false);
    expect(() => {
      ctx.logger.info('nothing', { a: 1 });
      ctx.logger.child({ b: 2 }).error('nothing');
    }).not.toThrow();
  });

  it('exposes the given signal and logger', () => {
    const controller = new AbortController();
    const { logger } = capturedLogger();
    const ctx = new ReconcileContext({ signal: controller.signal, logger });
    expect(ctx.signal).toBe(controller.signal);
    expect(ctx.logger).toBe(logger);
    controller.abort();
    expect(ctx.signal.aborted).toBe(true);
  });

  it('stores typed values under keys', () => {
    const clientKey = defineContextKey<{ region: string }>('client');
    const countKey = defineContextKey<number>('count');
    const ctx = new ReconcileContext();
    expect(ctx.get(clientKey)).toBeUndefined();
    expect(ctx.has(clientKey)).toBe(false);
    ctx.set(clientKey, { region: 'eu' });
    ctx.set(countKey, 3);
    expect(ctx.get(clientKey)).toEqual({ region: 'eu' });
    expect(ctx.get(countKey)).toBe(3);
    expect(ctx.has(clientKey)).toBe(true);
  });

  it('keeps keys with the same name apart', () => {
    const a = defineContextKey<string>('k');
    const b = defineContextKey<string>('k');
    const ctx = new ReconcileContext();
    ctx.set(a, 'a');
    expect(ctx.get(b)).toBeUndefined();
    expect(a.name).toBe('k');
  });

  it('shares values and signal with derived contexts in both directions, but not the logger', async () => {
    const key = defineContextKey<string>('shared');
    const { logger, lines } = capturedLogger();
    const ctx = new ReconcileContext({ logger });
    const derived = ctx.withLogMeta({ resource: 'r0' });
    derived.set(key, 'from resource');
    expect(ctx.get(key)).toBe('from resource');
    ctx.set(key, 'from engine');
    expect(derived.get(key)).toBe('from engine');
    expect(derived.signal).toBe(ctx.signal);
    expect(derived).toBeInstanceOf(ReconcileContext);
    derived.logger.info('in resource');
    ctx.logger.info('in engine');
    const [inResource, inEngine] = await lines();
    expect(inResource).toMatchObject({ message: 'in resource', resource: 'r0' });
    expect(inEngine).toMatchObject({ message: 'in engine' });
    expect(inEngine).not.toHaveProperty('resource');
  });

  it('withLogger replaces the logger only', () => {
    const { logger } = capturedLogger();
    const ctx = new ReconcileContext();
    const derived = ctx.withLogger(logger);
    expect(derived.logger).toBe(logger);
    expect(ctx.logger).not.toBe(logger);
  });

  it('separate contexts do not share values', () => {
    const key = defineContextKey<number>('n');
    const a = new ReconcileContext();
    const b = new ReconcileContext();
    a.set(key, 1);
    expect(b.get(key)).toBeUndefined();
  });

  it('rejects a signal that is not an AbortSignal', () => {
    expect(() => new ReconcileContext({ signal: {} as AbortSignal })).toThrow(
      /options.signal must be an AbortSignal/,
    );
  });

  it('rejects an empty key name with InvalidConfigError', () => {
    let caught: unknown;
    try {
      defineContextKey('');
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/name must be a non-empty string/);
  });
});
