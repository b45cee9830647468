import { describe, expect, it } from 'vitest';
import { createConsoleLogger, createDefaultLogger, type LogStream } from './console-logger.ts';
import { LassoError } from './errors.ts';
import { FakeClock } from './testing/fake-clock.ts';

function memoryStream(isTTY = false): LogStream & { lines: string[] } {
  const lines: string[] = [];
  return { isTTY, lines, write: (chunk: string) => lines.push(chunk) };
}

const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 6));

describe('createConsoleLogger', () => {
  it('writes JSON lines with time, level, msg and attributes when the stream is no terminal', () => {
    const stream = memoryStream(false);
    const logger = createConsoleLogger({ stream, clock });
    logger.child({ controller: 'pods' }).warn('sync failed', { key: 'default/web', attempt: 2 });
    expect(stream.lines).toEqual([
      '{"time":"2026-01-02T03:04:05.006Z","level":"warn","msg":"sync failed","controller":"pods","key":"default/web","attempt":2}\n',
    ]);
  });

  it('writes text lines when the stream is a terminal', () => {
    const stream = memoryStream(true);
    const logger = createConsoleLogger({ stream, clock });
    logger.child({ controller: 'pods' }).error('watch failed', {
      error: new LassoError('LASSO_TIMEOUT', 'timed out after 5s'),
      attempt: 3,
      labels: { app: 'web' },
      empty: '',
    });
    expect(stream.lines).toEqual([
      '2026-01-02T03:04:05.006Z ERROR watch failed controller=pods error="timed out after 5s" attempt=3 labels={"app":"web"} empty=""\n',
    ]);
  });

  it('prints a multi-line stack attribute under a text line, and keeps it one string in JSON', () => {
    const stack =
      'Error: boom\n    at deriveCopy (file:///app/derive.ts:3:9)\ncaused by: Error: quota';
    const text = memoryStream(true);
    createConsoleLogger({ stream: text, clock }).error('reconcile failed', { key: 'a/b', stack });
    expect(text.lines).toEqual([
      '2026-01-02T03:04:05.006Z ERROR reconcile failed key=a/b\n' +
        '    Error: boom\n    at deriveCopy (file:///app/derive.ts:3:9)\n    caused by: Error: quota\n',
    ]);
    const json = memoryStream(false);
    createConsoleLogger({ stream: json, clock }).error('reconcile failed', { stack });
    expect(JSON.parse(json.lines[0] ?? '').stack).toBe(stack);
  });

  it.for([
    { name: 'text on a non-terminal when asked', format: 'text', isTTY: false, json: false },
    { name: 'JSON on a terminal when asked', format: 'json', isTTY: true, json: true },
    { name: 'JSON when auto and isTTY is unknown', format: 'auto', isTTY: undefined, json: true },
  ] as const)('writes $name', ({ format, isTTY, json }) => {
    const lines: string[] = [];
    const logger = createConsoleLogger({
      format,
      clock,
      stream: { isTTY, write: (chunk: string) => lines.push(chunk) },
    });
    logger.info('started');
    expect(lines[0]?.startsWith('{')).toBe(json);
  });

  it.for([
    {
      name: 'debug writes every level',
      level: 'debug',
      written: ['debug', 'info', 'warn', 'error'],
    },
    { name: 'info drops debug', level: 'info', written: ['info', 'warn', 'error'] },
    { name: 'warn keeps warn and error', level: 'warn', written: ['warn', 'error'] },
    { name: 'error keeps only error', level: 'error', written: ['error'] },
    { name: 'silent writes nothing', level: 'silent', written: [] },
  ] as const)('$name', ({ level, written }) => {
    const stream = memoryStream();
    const logger = createConsoleLogger({ level, stream, clock }).child({ controller: 'pods' });
    logger.debug('x');
    logger.info('x');
    logger.warn('x');
    logger.error('x');
    expect(stream.lines.map((line) => JSON.parse(line).level)).toEqual(written);
  });

  it('defaults to level info', () => {
    const stream = memoryStream();
    const logger = createConsoleLogger({ stream, clock });
    logger.debug('dropped');
    logger.info('kept');
    expect(stream.lines).toHaveLength(1);
  });

  it('renders hostile attribute values without throwing', () => {
    const stream = memoryStream();
    const logger = createConsoleLogger({ stream, clock });
    const cyclic: Record<string, unknown> = { name: 'web' };
    cyclic.self = cyclic;
    const throwingGetter = {
      ok: 1,
      get bad(): never {
        throw new Error('getter exploded');
      },
    };
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const badMessage = new Error('x');
    Object.defineProperty(badMessage, 'message', {
      get() {
        throw new Error('message exploded');
      },
    });
    const attributes = {
      cyclic,
      throwingGetter,
      revoked,
      big: 2n ** 70n,
      symbol: Symbol('s'),
      fn: function reconcile() {},
      nan: Number.NaN,
      date: new Date(Number.NaN),
      bytes: new Uint8Array(3),
      map: new Map([['a', 1]]),
      set: new Set(['b']),
      deep: { a: { b: { c: { d: { e: { f: 1 } } } } } },
      badMessage,
      undefinedValue: undefined,
      ['__proto__']: 'an own key',
    };
    expect(() => logger.error('hostile', attributes)).not.toThrow();
    const entry = JSON.parse(stream.lines[0] ?? '');
    expect(entry).toMatchObject({
      cyclic: { name: 'web', self: '[circular]' },
      throwingGetter: { ok: 1, bad: '[unprintable]' },
      revoked: '[unprintable]',
      big: '1180591620717411303424',
      symbol: 'Symbol(s)',
      fn: '[function reconcile]',
      nan: 'NaN',
      date: 'Invalid Date',
      bytes: '[Uint8Array 3 bytes]',
      map: [['a', 1]],
      set: ['b'],
      deep: { a: { b: { c: { d: { e: '[object]' } } } } },
    });
    expect(typeof entry.badMessage).toBe('string');
    expect(entry).not.toHaveProperty('undefinedValue');
    expect(Object.getOwnPropertyDescriptor(entry, '__proto__')?.value).toBe('an own key');

    const text = memoryStream(true);
    expect(() =>
      createConsoleLogger({ stream: text, clock }).error('hostile', attributes),
    ).not.toThrow();
    expect(text.lines[0]).toContain('big=1180591620717411303424');
    expect(text.lines[0]).toContain('revoked=[unprintable]');
  });

  it('survives hostile attribute objects, messages, streams and clocks', () => {
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const stream = memoryStream();
    const logger = createConsoleLogger({ stream, clock });
    expect(() => logger.child(revoked).warn('from a revoked child')).not.toThrow();
    expect(() => logger.warn('revoked attributes', revoked)).not.toThrow();
    expect(() =>
      logger.warn(
        {
          toString() {
            throw new Error('no');
          },
        } as never,
        undefined,
      ),
    ).not.toThrow();
    expect(stream.lines).toHaveLength(3);
    expect(JSON.parse(stream.lines[1] ?? '')).toMatchObject({ attributes: '[unprintable]' });
    expect(JSON.parse(stream.lines[2] ?? '')).toMatchObject({ msg: '[unprintable]' });

    const broken = createConsoleLogger({
      stream: {
        write: () => {
          throw new Error('EPIPE');
        },
      },
      clock: {
        now: () => {
          throw new Error('no time');
        },
        monotonic: () => 0,
        schedule: (delayMs, callback) => clock.schedule(delayMs, callback),
      },
    });
    expect(() => broken.error('lost')).not.toThrow();
  });

  it('keeps fixed JSON fields when an attribute reuses their name', () => {
    const stream = memoryStream();
    createConsoleLogger({ stream, clock }).info('started', { level: 'x', msg: 'y' });
    expect(JSON.parse(stream.lines[0] ?? '')).toMatchObject({
      level: 'info',
      msg: 'started',
      'attr.level': 'x',
      'attr.msg': 'y',
    });
  });

  it('quotes text values and messages that would break the line', () => {
    const stream = memoryStream(true);
    createConsoleLogger({ stream, clock }).info('two\nlines', { key: 'a b', eq: 'x=y' });
    expect(stream.lines).toEqual([
      '2026-01-02T03:04:05.006Z INFO  "two\\nlines" key="a b" eq="x=y"\n',
    ]);
  });

  it.for([
    {
      name: 'an unknown level',
      options: { level: 'verbose' },
      error: RangeError,
      text: 'options.level',
    },
    {
      name: 'an unknown format',
      options: { format: 'xml' },
      error: RangeError,
      text: 'options.format',
    },
    {
      name: 'a stream without write',
      options: { stream: {} },
      error: TypeError,
      text: 'options.stream',
    },
  ])('rejects $name', ({ options, error, text }) => {
    expect(() => createConsoleLogger(options as never)).toThrow(error);
    expect(() => createConsoleLogger(options as never)).toThrow(text);
  });
});

describe('createDefaultLogger', () => {
  it('writes warn and error but not info when LASSO_LOG_LEVEL is unset', () => {
    const stream = memoryStream();
    const logger = createDefaultLogger({ env: {}, stream, clock });
    logger.info('dropped');
    logger.child({ informer: 'pods' }).warn('watch failed');
    logger.error('gave up');
    expect(stream.lines.map((line) => JSON.parse(line))).toMatchObject([
      { level: 'warn', msg: 'watch failed', informer: 'pods' },
      { level: 'error', msg: 'gave up' },
    ]);
  });

  it.for([
    { name: 'silent writes nothing', value: 'silent', written: [] },
    { name: 'error keeps errors', value: 'error', written: ['error'] },
    {
      name: 'debug writes everything',
      value: 'debug',
      written: ['debug', 'info', 'warn', 'error'],
    },
    { name: 'case and spaces do not matter', value: ' Info ', written: ['info', 'warn', 'error'] },
    { name: 'empty means the default', value: '', written: ['warn', 'error'] },
  ])('LASSO_LOG_LEVEL: $name', ({ value, written }) => {
    const stream = memoryStream();
    const logger = createDefaultLogger({ env: { LASSO_LOG_LEVEL: value }, stream, clock });
    logger.debug('x');
    logger.info('x');
    logger.warn('x');
    logger.error('x');
    expect(stream.lines.map((line) => JSON.parse(line).level)).toEqual(written);
  });

  it('warns about an unknown LASSO_LOG_LEVEL and uses warn', () => {
    const stream = memoryStream();
    const logger = createDefaultLogger({ env: { LASSO_LOG_LEVEL: 'verbose' }, stream, clock });
    logger.info('dropped');
    logger.warn('kept');
    expect(stream.lines.map((line) => JSON.parse(line))).toMatchObject([
      { level: 'warn', msg: expect.stringContaining('LASSO_LOG_LEVEL'), value: 'verbose' },
      { level: 'warn', msg: 'kept' },
    ]);
  });

  it('reads LASSO_LOG_LEVEL once, when it first writes rather than when it is created', () => {
    const env: Record<string, string | undefined> = {};
    const stream = memoryStream();
    const logger = createDefaultLogger({ env, stream, clock });
    const child = logger.child({ informer: 'pods' });
    env.LASSO_LOG_LEVEL = 'debug';
    child.debug('read now');
    env.LASSO_LOG_LEVEL = 'silent';
    logger.debug('still debug');
    expect(stream.lines).toHaveLength(2);
  });

  it('writes text on a terminal', () => {
    const stream = memoryStream(true);
    createDefaultLogger({ env: {}, stream, clock }).warn('watch failed');
    expect(stream.lines).toEqual(['2026-01-02T03:04:05.006Z WARN  watch failed\n']);
  });
});
