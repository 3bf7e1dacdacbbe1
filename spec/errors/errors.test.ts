import { describe, expect, it } from 'vitest';
import { ExecutionFailedError, isExecutionFailed } from '../../lib/errors/execution-failed-error.js';
import { hasCause, MAX_CAUSE_DEPTH } from '../../lib/errors/has-cause.js';
import { InvalidConfigError, isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import { isLoopDetected, LoopDetectedError } from '../../lib/errors/loop-detected-error.js';
import { isNoResourceSet, NoResourceSetError } from '../../lib/errors/no-resource-set-error.js';

const kinds = [
  ['InvalidConfigError', InvalidConfigError, isInvalidConfig],
  ['ExecutionFailedError', ExecutionFailedError, isExecutionFailed],
  ['NoResourceSetError', NoResourceSetError, isNoResourceSet],
  ['LoopDetectedError', LoopDetectedError, isLoopDetected],
] as const;

describe.each(kinds)('%s', (name, ErrorClass, predicate) => {
  it('is an Error with its name, message and cause', () => {
    const cause = new Error('root');
    const err = new ErrorClass('what to fix', { cause });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe(name);
    expect(err.message).toBe('what to fix');
    expect(err.cause).toBe(cause);
  });

  it('is recognised directly and through a chain of wrapping causes', () => {
    const err = new ErrorClass('x');
    expect(predicate(err)).toBe(true);
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: err }) });
    expect(predicate(wrapped)).toBe(true);
  });

  it('is recognised when the error comes from another copy of the module (same kind, other class)', () => {
    const kindSymbol = Symbol.for('reconcilekit.errorKind');
    const kind: unknown = (new ErrorClass('y') as unknown as Record<symbol, unknown>)[kindSymbol];
    expect(kind).toBe(name.replace(/Error$/, ''));
    const foreign = Object.assign(new Error('x'), { [kindSymbol]: kind });
    expect(foreign).not.toBeInstanceOf(ErrorClass);
    expect(predicate(foreign)).toBe(true);
  });

  it('does not match other errors, other kinds or non-errors', () => {
    expect(predicate(new Error('plain'))).toBe(false);
    expect(predicate(undefined)).toBe(false);
    expect(predicate(null)).toBe(false);
    expect(predicate('InvalidConfigError')).toBe(false);
    expect(predicate({ name })).toBe(false);
    for (const [otherName, Other] of kinds) {
      if (otherName !== name) expect(predicate(new Other('x'))).toBe(false);
    }
  });

  it('terminates on a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(predicate(a)).toBe(false);
  });
});

describe('hasCause', () => {
  it(`gives up after ${MAX_CAUSE_DEPTH} levels`, () => {
    let err: Error = new InvalidConfigError('deep');
    for (let i = 0; i < MAX_CAUSE_DEPTH + 5; i++) err = new Error(`level ${i}`, { cause: err });
    expect(hasCause(err, (e) => e instanceof InvalidConfigError)).toBe(false);
    let shallow: Error = new InvalidConfigError('shallow');
    for (let i = 0; i < 10; i++) shallow = new Error(`level ${i}`, { cause: shallow });
    expect(hasCause(shallow, (e) => e instanceof InvalidConfigError)).toBe(true);
  });

  it('follows causes that are not Error instances', () => {
    expect(hasCause({ cause: { cause: 'needle' } }, (c) => c === 'needle')).toBe(true);
  });
});
