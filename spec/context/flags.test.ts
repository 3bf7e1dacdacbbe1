import { describe, expect, it } from 'vitest';
import { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { defineFlag } from '../../lib/context/flag.js';
import {
  BUILTIN_FLAGS,
  deletionAllowed,
  finalizersKept,
  installFlags,
  reconciliationCanceled,
  resourceCanceled,
  updateAllowed,
  updateNecessary,
} from '../../lib/context/flags.js';
import { isInvalidConfig } from '../../lib/errors/invalid-config-error.js';

const flags = {
  reconciliationCanceled,
  resourceCanceled,
  updateAllowed,
  updateNecessary,
  deletionAllowed,
  finalizersKept,
};

describe.each(Object.entries(flags))('flag %s', (name, flag) => {
  it('carries its name', () => {
    expect(flag.name).toBe(name);
  });

  it('is false in a plain context', () => {
    const ctx = new ReconcileContext();
    expect(flag.is(ctx)).toBe(false);
    expect(flag.isInstalled(ctx)).toBe(false);
  });

  it('is false right after install', () => {
    const ctx = new ReconcileContext();
    flag.install(ctx);
    expect(flag.isInstalled(ctx)).toBe(true);
    expect(flag.is(ctx)).toBe(false);
  });

  it('is true after set', () => {
    const ctx = new ReconcileContext();
    flag.install(ctx);
    flag.set(ctx);
    expect(flag.is(ctx)).toBe(true);
  });

  it('stays true when set three times', () => {
    const ctx = new ReconcileContext();
    flag.install(ctx);
    flag.set(ctx);
    flag.set(ctx);
    flag.set(ctx);
    expect(flag.is(ctx)).toBe(true);
  });

  it('installs itself raised when set without install (never a silent no-op)', () => {
    const ctx = new ReconcileContext();
    flag.set(ctx);
    expect(flag.isInstalled(ctx)).toBe(true);
    expect(flag.is(ctx)).toBe(true);
  });

  it('is reset by a fresh install', () => {
    const ctx = new ReconcileContext();
    flag.set(ctx);
    flag.install(ctx);
    expect(flag.is(ctx)).toBe(false);
  });

  it('raised in a derived context is visible to the context that installed it', () => {
    const ctx = new ReconcileContext();
    flag.install(ctx);
    const derived = ctx.withLogMeta({ resource: 'r0' }).withLogMeta({ function: 'GetCurrentState' });
    flag.set(derived);
    expect(flag.is(ctx)).toBe(true);
  });

  it('does not leak into another reconciliation context', () => {
    const first = new ReconcileContext();
    const second = new ReconcileContext();
    flag.set(first);
    expect(flag.is(second)).toBe(false);
  });
});

describe('flags together', () => {
  it('never collide: raising one leaves the five others unset', () => {
    for (const raised of BUILTIN_FLAGS) {
      const ctx = new ReconcileContext();
      installFlags(ctx);
      raised.set(ctx);
      for (const other of BUILTIN_FLAGS) expect(other.is(ctx)).toBe(other === raised);
    }
  });

  it('installFlags installs all six fresh', () => {
    const ctx = new ReconcileContext();
    for (const flag of BUILTIN_FLAGS) flag.set(ctx);
    installFlags(ctx);
    expect(BUILTIN_FLAGS).toHaveLength(6);
    for (const flag of BUILTIN_FLAGS) {
      expect(flag.isInstalled(ctx)).toBe(true);
      expect(flag.is(ctx)).toBe(false);
    }
  });

  it('installFlags installs only the flags it is given', () => {
    const ctx = new ReconcileContext();
    installFlags(ctx, [updateAllowed]);
    expect(updateAllowed.isInstalled(ctx)).toBe(true);
    expect(finalizersKept.isInstalled(ctx)).toBe(false);
  });
});

describe('defineFlag', () => {
  it('makes user flags with the same behaviour as the built-in ones', () => {
    const rollPods = defineFlag('rollPods');
    const ctx = new ReconcileContext();
    expect(rollPods.is(ctx)).toBe(false);
    rollPods.install(ctx);
    rollPods.set(ctx);
    expect(rollPods.is(ctx)).toBe(true);
  });

  it('gives two flags with the same name separate slots', () => {
    const a = defineFlag('same');
    const b = defineFlag('same');
    const ctx = new ReconcileContext();
    a.set(ctx);
    expect(a.is(ctx)).toBe(true);
    expect(b.is(ctx)).toBe(false);
  });

  it('rejects an empty name with InvalidConfigError', () => {
    expect(() => defineFlag('')).toThrow(/name must be a non-empty string/);
    let caught: unknown;
    try {
      defineFlag('');
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
  });
});
