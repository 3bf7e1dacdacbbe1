import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import { createLogger, DEFAULT_LOG_LEVEL, type LoggerOptions } from '../../lib/observability/logger.js';
import { serialiseError } from '../../lib/observability/logger-serialise-errors.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';

function capture(options: Omit<LoggerOptions, 'stream'> = {}) {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const logger = createLogger({ ...options, stream });
  const raw = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return chunks.join('');
  };
  const lines = async () =>
    (await raw())
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, raw };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('createLogger', () => {
  it('writes one JSON object per line with timestamp, level, message and meta', async () => {
    const { logger, raw, lines } = capture();
    logger.info('reconciled object', { object: 'ns/a', loop: 3 });
    logger.warn('second');
    const text = await raw();
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trim().split('\n')).toHaveLength(2);
    const [first, second] = await lines();
    expect(first).toMatchObject({ level: 'info', message: 'reconciled object', object: 'ns/a', loop: 3 });
    expect(new Date(first!.timestamp as string).getTime()).not.toBeNaN();
    expect(second).toMatchObject({ level: 'warn', message: 'second' });
  });

  it(`defaults to level ${DEFAULT_LOG_LEVEL}: debug lines are dropped`, async () => {
    vi.stubEnv('LOG_LEVEL', '');
    const { logger, lines } = capture();
    logger.debug('hidden');
    logger.info('shown');
    logger.error('shown too');
    expect((await lines()).map((l) => l.message)).toEqual(['shown', 'shown too']);
  });

  it('takes the level from LOG_LEVEL when options say nothing', async () => {
    vi.stubEnv('LOG_LEVEL', 'DEBUG');
    const { logger, lines } = capture();
    logger.debug('visible');
    expect((await lines()).map((l) => l.message)).toEqual(['visible']);
  });

  it('prefers options.level over LOG_LEVEL', async () => {
    vi.stubEnv('LOG_LEVEL', 'debug');
    const { logger, lines } = capture({ level: 'error' });
    logger.debug('no');
    logger.info('no');
    logger.warn('no');
    logger.error('yes');
    expect((await lines()).map((l) => l.message)).toEqual(['yes']);
  });

  it('writes nothing when silent', async () => {
    const { logger, raw } = capture({ silent: true });
    logger.error('dropped');
    expect(await raw()).toBe('');
  });

  it('adds defaultMeta to every line', async () => {
    const { logger, lines } = capture({ defaultMeta: { operator: 'memcached' } });
    logger.info('a');
    logger.child({ resource: 'r' }).info('b');
    expect((await lines()).map((l) => l.operator)).toEqual(['memcached', 'memcached']);
  });

  it('serialises errors in meta with name, message, stack and cause', async () => {
    const { logger, lines } = capture();
    const root = new TypeError('socket hang up');
    const err = Object.assign(new Error('GET failed', { cause: root }), { statusCode: 503 });
    logger.error('failed to reconcile', { err });
    const [line] = await lines();
    expect(line!.err).toMatchObject({
      name: 'Error',
      message: 'GET failed',
      statusCode: 503,
      stack: expect.stringContaining('GET failed'),
      cause: {
        name: 'TypeError',
        message: 'socket hang up',
        stack: expect.stringContaining('socket hang up'),
      },
    });
  });

  it('child loggers carry their keys; the parent and siblings never see them', async () => {
    const { logger, lines } = capture({ level: 'debug' });
    const loop = logger.child({ controller: 'c', loop: 1 });
    const resource = loop.child({ resource: 'configmaps' });
    const step = resource.child({ function: 'GetCurrentState' });
    step.debug('reading');
    resource.info('resource line');
    loop.child({ resource: 'services' }).info('sibling');
    loop.info('loop line');
    logger.info('unrelated');
    const written = await lines();
    expect(written.map((l) => [l.message, l.controller, l.resource, l.function])).toEqual([
      ['reading', 'c', 'configmaps', 'GetCurrentState'],
      ['resource line', 'c', 'configmaps', undefined],
      ['sibling', 'c', 'services', undefined],
      ['loop line', 'c', undefined, undefined],
      ['unrelated', undefined, undefined, undefined],
    ]);
  });

  it('writes keys sorted, a cycle as "[Circular]" and a bigint as a string, without throwing', async () => {
    const { logger, raw, lines } = capture();
    const loop: Record<string, unknown> = { name: 'a' };
    loop.self = loop;
    logger.info('odd meta', { zeta: 1, alpha: loop, big: 2n ** 70n });
    const text = await raw();
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'alpha',
      'big',
      'level',
      'message',
      'timestamp',
      'zeta',
    ]);
    expect((await lines())[0]).toMatchObject({
      alpha: { name: 'a', self: '[Circular]' },
      big: '1180591620717411303424',
    });
  });

  it('lets per-call meta override child meta', async () => {
    const { logger, lines } = capture();
    logger.child({ resource: 'a' }).info('x', { resource: 'b' });
    expect((await lines())[0]!.resource).toBe('b');
  });

  it.each([
    [{ level: 'verbose' as never }, 'options.level must be one of debug, info, warn, error; got "verbose"'],
    [{ stream: {} as never }, 'options.stream must be a Writable stream'],
  ])('rejects bad options with InvalidConfigError (%j)', (options, message) => {
    let caught: unknown;
    try {
      createLogger(options);
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });

  it('rejects a bad LOG_LEVEL with InvalidConfigError naming the variable', () => {
    vi.stubEnv('LOG_LEVEL', 'loud');
    expect(() => createLogger({ stream: new PassThrough() })).toThrow(
      'LOG_LEVEL must be one of debug, info, warn, error; got "loud"',
    );
  });
});

describe('serialiseError', () => {
  it('stops nesting causes after a few levels and keeps non-Error causes as they are', () => {
    let err = new Error('e0', { cause: 'text cause' });
    for (let i = 1; i < 10; i++) err = new Error(`e${i}`, { cause: err });
    let node: unknown = serialiseError(err);
    let depth = 0;
    while (typeof node === 'object' && node !== null && 'cause' in node && typeof node.cause === 'object') {
      node = node.cause;
      depth += 1;
    }
    expect(depth).toBeLessThan(10);
    expect(serialiseError(new Error('x', { cause: 'text cause' })).cause).toBe('text cause');
  });
});

describe('silentLogger', () => {
  it('accepts every call, including children, and writes nothing', () => {
    const logger = silentLogger();
    expect(() => {
      logger.debug('a');
      logger.info('b', { x: 1 });
      logger.warn('c');
      logger.error('d', { err: new Error('e') });
      logger.child({ a: 1 }).child({ b: 2 }).info('f');
    }).not.toThrow();
    expect(logger.child({ a: 1 })).toBeDefined();
  });
});

describe('createLogger format', () => {
  it('writes readable lines on a terminal: time, level, message, key=value, the stack of a logged error', async () => {
    vi.stubEnv('LOG_FORMAT', '');
    const stream = Object.assign(new PassThrough(), { isTTY: true });
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
    const logger = createLogger({ stream });
    logger.child({ resource: 'default/hello' }).info('reconciled', { step: 'applyCreateChange', n: 2 });
    logger.error('reconcile failed', { err: new TypeError('bad spec') });
    await new Promise((resolve) => setImmediate(resolve));
    const text = chunks.join('');
    const esc = String.fromCharCode(27);
    expect(
      text.startsWith(`${text.slice(0, 12)} ${esc}[36mINFO ${esc}[0m reconciled  resource=default/hello`),
    ).toBe(true);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} .* step=applyCreateChange n=2\n/);
    expect(text).toMatch(
      /ERROR.*reconcile failed {2}err="TypeError: bad spec"\n {4}TypeError: bad spec\n {8}at /,
    );
  });

  it('takes the format from LOG_FORMAT, and says what is allowed when it is wrong', async () => {
    vi.stubEnv('LOG_FORMAT', 'console');
    const { logger, raw } = capture();
    logger.warn('slow', { ms: 1200 });
    expect(await raw()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}slow {2}ms=1200\n$/);
    vi.stubEnv('LOG_FORMAT', 'pretty');
    expect(() => createLogger({ stream: new PassThrough() })).toThrow(
      'LOG_FORMAT must be one of json, console; got "pretty"',
    );
  });

  it('writes JSON when the stream is not a terminal (a pod, a pipe)', async () => {
    vi.stubEnv('LOG_FORMAT', '');
    const { logger, lines } = capture();
    logger.info('hello');
    expect((await lines())[0]).toMatchObject({ level: 'info', message: 'hello' });
  });
});
