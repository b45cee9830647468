// Unit tests of the pino Logger adapter (pino-logger.ts): JSON lines with the message and attributes.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPinoLogger, type PinoLoggerOptions } from './pino-logger.ts';

function capture(options: Omit<PinoLoggerOptions, 'destination'>) {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createPinoLogger({ ...options, destination });
  const lines = (): string[] =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '');
  const records = (): Array<Record<string, unknown>> => lines().map((line) => JSON.parse(line));
  return { logger, lines, records };
}

describe('createPinoLogger', () => {
  it('writes one JSON line per entry with msg, level and the attributes', () => {
    const { logger, records } = capture({ level: 'info', pretty: false });
    logger.info('reconciled', { key: 'shop/vanilla', attempt: 2 });
    logger.warn('retrying');
    expect(records()).toEqual([
      { level: 30, time: expect.any(Number), msg: 'reconciled', key: 'shop/vanilla', attempt: 2 },
      { level: 40, time: expect.any(Number), msg: 'retrying' },
    ]);
  });

  it('adds the attributes of a child, and of its children, to every entry', () => {
    const { logger, records } = capture({ level: 'debug', pretty: false });
    const child = logger.child({ controller: 'icecream' });
    child.debug('queued', { key: 'shop/vanilla' });
    child.child({ worker: 1 }).error('failed', { error: 'boom' });
    logger.info('parent');
    expect(records()).toEqual([
      expect.objectContaining({
        level: 20,
        msg: 'queued',
        controller: 'icecream',
        key: 'shop/vanilla',
      }),
      expect.objectContaining({
        level: 50,
        msg: 'failed',
        controller: 'icecream',
        worker: 1,
        error: 'boom',
      }),
      { level: 30, time: expect.any(Number), msg: 'parent' },
    ]);
  });

  it.for([
    { name: 'debug', level: 'debug', written: ['d', 'i', 'w', 'e'] },
    { name: 'info', level: 'info', written: ['i', 'w', 'e'] },
    { name: 'warn', level: 'warn', written: ['w', 'e'] },
    { name: 'error', level: 'error', written: ['e'] },
    { name: 'silent', level: 'silent', written: [] },
  ] as const)('writes only entries at or above level $name', ({ level, written }) => {
    const { logger, records } = capture({ level, pretty: false });
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(records().map((record) => record.msg)).toEqual(written);
  });

  it('redacts tokens and authorization headers should an attribute carry one', () => {
    const { logger, lines } = capture({ level: 'info', pretty: false });
    logger.info('request', { token: 'secret-1', request: { authorization: 'Bearer secret-2' } });
    expect(lines().join('\n')).not.toContain('secret');
    expect(JSON.parse(lines()[0] ?? '{}')).toMatchObject({
      token: '[redacted]',
      request: { authorization: '[redacted]' },
    });
  });

  it('writes readable lines instead of JSON when pretty', () => {
    const { logger, lines } = capture({ level: 'info', pretty: true });
    logger.info('reconciled', { key: 'shop/vanilla' });
    const text = lines().join('\n');
    expect(text).toContain('reconciled');
    expect(text).toContain('shop/vanilla');
    expect(() => JSON.parse(lines()[0] ?? '')).toThrow();
  });
});
