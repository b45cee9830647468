import { inspect } from 'node:util';
import { isLassoError } from '@lasso/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError, isGone } from './errors.ts';
import { decodeWatchEvent, decodeWatchTail, LineDecoder } from './watch.ts';

const encoder = new TextEncoder();

/** Cut `bytes` at the given offsets into chunks. */
function cut(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

function decodeAll(chunks: Uint8Array[]): string[] {
  const decoder = new LineDecoder();
  const lines: string[] = [];
  for (const chunk of chunks) lines.push(...decoder.push(chunk));
  const tail = decoder.end();
  if (tail !== undefined) lines.push(tail);
  return lines;
}

describe('LineDecoder', () => {
  it('throws LASSO_RESPONSE_TOO_LARGE once an unfinished line passes maxLineBytes, and drops it', () => {
    const decoder = new LineDecoder({ maxLineBytes: 10 });
    expect(decoder.push(Buffer.from('0123456789\nabc'))).toEqual(['0123456789']);
    expect(decoder.push(Buffer.from('defghij'))).toEqual([]);
    let thrown: unknown;
    try {
      decoder.push(Buffer.from('k'));
    } catch (error) {
      thrown = error;
    }
    expect(isLassoError(thrown, 'LASSO_RESPONSE_TOO_LARGE')).toBe(true);
    expect((thrown as Error).message).toBe('a line passed maxLineBytes (10 bytes)');
    expect(() => decoder.end()).toThrow('a line passed maxLineBytes (10 bytes)');
  });

  it('delivers the lines completed before an oversized one, then throws at the next call', () => {
    const decoder = new LineDecoder({ maxLineBytes: 4 });
    expect(decoder.push(Buffer.from('ab\ncd\n123456'))).toEqual(['ab', 'cd']);
    expect(() => decoder.end()).toThrow('a line passed maxLineBytes (4 bytes)');
    const whole = new LineDecoder({ maxLineBytes: 4 });
    expect(whole.push(Buffer.from('ab\n123456\ncd\n'))).toEqual(['ab']);
    expect(() => whole.push(Buffer.from('ef\n'))).toThrow('a line passed maxLineBytes');
  });

  it('throws for a whole line over maxLineBytes within one chunk', () => {
    const decoder = new LineDecoder({ maxLineBytes: 4 });
    expect(() => decoder.push(Buffer.from('12345\n'))).toThrow(
      'a line passed maxLineBytes (4 bytes)',
    );
  });

  it('refuses a bad maxLineBytes and defaults to 16 MiB', () => {
    expect(() => new LineDecoder({ maxLineBytes: 0 })).toThrow(RangeError);
    const decoder = new LineDecoder();
    expect(() => decoder.push(Buffer.alloc(16 * 1024 * 1024, 'a'))).not.toThrow();
    expect(() => decoder.push(Buffer.from('a'))).toThrow('(16777216 bytes)');
  });

  it('yields every line whatever the chunk boundaries (multi-byte characters included)', () => {
    const event = fc.record({
      type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
      object: fc.record({
        metadata: fc.record({ name: fc.string({ unit: 'grapheme', maxLength: 20 }) }),
        data: fc.dictionary(
          fc.string({ maxLength: 5 }),
          fc.string({ unit: 'binary', maxLength: 30 }),
        ),
      }),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (events, offsets) => {
          const text = events.map((e) => `${JSON.stringify(e)}\n`).join('');
          const lines = decodeAll(cut(encoder.encode(text), offsets));
          expect(lines.map((line) => decodeWatchEvent(line))).toEqual(events);
        },
      ),
      { numRuns: 200, seed: 8_201 },
    );
    // 200 generated streams took 5.5 s alone and over 10 s beside other suites on a loaded 2-core machine.
  }, 60_000);

  it('decodes a 4-byte character split across three chunks', () => {
    const bytes = encoder.encode('{"a":"😀"}\n');
    const at = bytes.indexOf(0xf0);
    const decoder = new LineDecoder();
    expect(decoder.push(bytes.subarray(0, at + 1))).toEqual([]);
    expect(decoder.push(bytes.subarray(at + 1, at + 3))).toEqual([]);
    expect(decoder.push(bytes.subarray(at + 3))).toEqual(['{"a":"😀"}']);
  });

  it('returns the last line without a trailing newline at the end', () => {
    const decoder = new LineDecoder();
    expect(decoder.push(encoder.encode('one\r\ntwo\nthr'))).toEqual(['one', 'two']);
    expect(decoder.push(encoder.encode('ee'))).toEqual([]);
    expect(decoder.end()).toBe('three');
    expect(decoder.end()).toBeUndefined();
  });

  it('keeps an unfinished line when the producer reuses the chunk memory', () => {
    const decoder = new LineDecoder();
    const chunk = Buffer.from('{"a":1}\n{"b"');
    expect(decoder.push(chunk)).toEqual(['{"a":1}']);
    chunk.fill(0x20);
    expect(decoder.push(Buffer.from(':2}\n'))).toEqual(['{"b":2}']);
  });

  it('decodes like a non-fatal TextDecoder: a leading BOM dropped, invalid bytes replaced', () => {
    const decoder = new LineDecoder();
    const bom = [0xef, 0xbb, 0xbf];
    expect(decoder.push(Uint8Array.from([...bom, 0x61, 0x0a, ...bom, 0x62, 0xff, 0x0a]))).toEqual([
      'a',
      '\ufeffb\ufffd',
    ]);
    expect(decoder.push(Uint8Array.from([0x63, 0xe2, 0x82]))).toEqual([]);
    expect(decoder.end()).toBe('c\ufffd');
  });

  it('decodes the whole lines of a chunk at once exactly as line by line (invalid bytes, CR, BOM, limits)', () => {
    // Bytes rich in newlines, CRs, BOM pieces, multi-byte leads and invalid bytes, cut anywhere.
    const byte = fc.constantFrom(
      0x0a,
      0x0d,
      0x61,
      0xef,
      0xbb,
      0xbf,
      0xc3,
      0xa9,
      0xe2,
      0x82,
      0xff,
      0xf0,
      0x9f,
    );
    fc.assert(
      fc.property(
        fc
          .uint8Array({ maxLength: 80 })
          .chain((raw) => fc.tuple(fc.constant(raw), fc.array(byte, { maxLength: 80 }))),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 1, max: 40 }),
        ([raw, rich], offsets, maxLineBytes) => {
          const bytes = Uint8Array.from([...rich, ...raw, ...rich]);
          // Reference: split at newline bytes, each line decoded alone (BOM dropped from the first only).
          const expected: string[] = [];
          let from = 0;
          for (let i = 0; i < bytes.length; i++) {
            if (bytes[i] !== 0x0a) continue;
            const line = Buffer.from(bytes.subarray(from, i));
            if (i - from > maxLineBytes) break;
            let text = line.toString(
              'utf8',
              0,
              line.at(-1) === 0x0d ? line.length - 1 : line.length,
            );
            if (from === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
            expected.push(text);
            from = i + 1;
          }
          const decoder = new LineDecoder({ maxLineBytes });
          const lines: string[] = [];
          try {
            for (const chunk of cut(bytes, offsets)) lines.push(...decoder.push(chunk));
            decoder.end();
          } catch (error) {
            if (!isLassoError(error, 'LASSO_RESPONSE_TOO_LARGE')) throw error;
          }
          expect(lines).toEqual(expected);
        },
      ),
      { numRuns: 500, seed: 8_202 },
    );
  });

  it('joins a long line spread over many chunks once', () => {
    const decoder = new LineDecoder();
    const piece = 'x'.repeat(1000);
    for (let i = 0; i < 1000; i++) expect(decoder.push(encoder.encode(piece))).toEqual([]);
    const [line] = decoder.push(encoder.encode('\n'));
    expect(line).toHaveLength(1_000_000);
  });
});

describe('decodeWatchEvent', () => {
  it('returns the event for a well-formed line', () => {
    const event = decodeWatchEvent(
      '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}}',
    );
    expect(event).toEqual({ type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'a' } } });
  });

  it('throws an ApiError for an ERROR event (410 -> isGone)', () => {
    const line = JSON.stringify({
      type: 'ERROR',
      object: {
        kind: 'Status',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version: 1 (5)',
      },
    });
    expect(() => decodeWatchEvent(line)).toThrow(
      expect.objectContaining({
        status: 410,
        reason: 'Expired',
        message: 'too old resource version: 1 (5)',
      }),
    );
    try {
      decodeWatchEvent(line);
    } catch (error) {
      expect(isApiError(error)).toBe(true);
      expect(isGone(error)).toBe(true);
    }
  });

  it.for([
    { name: 'not JSON', line: '{"type":"ADDED","object":{"data":"s3cret"' },
    { name: 'not JSON near its start', line: '{"s3cret": s3cret}' },
    { name: 'no type', line: '{"object":{}}' },
    { name: 'no object', line: '{"type":"ADDED"}' },
    { name: 'an unknown type', line: '{"type":"EXPLODED","object":{}}' },
    { name: 'not an object', line: '42' },
  ])('throws LASSO_WATCH_DECODE for a line that is $name, never quoting it', ({ line }) => {
    let thrown: unknown;
    try {
      decodeWatchEvent(line);
    } catch (error) {
      thrown = error;
    }
    expect(isLassoError(thrown, 'LASSO_WATCH_DECODE')).toBe(true);
    expect((thrown as Error).message).not.toContain('s3cret');
    // JSON.parse quotes the text around the fault: its SyntaxError must not ride along as cause.
    expect(inspect(thrown, { depth: Number.POSITIVE_INFINITY })).not.toContain('s3cret');
  });
});

describe('decodeWatchTail', () => {
  it.for([
    { name: 'no tail', tail: undefined },
    { name: 'only whitespace', tail: ' \r' },
  ])('returns undefined for $name (the watch just ends)', ({ tail }) => {
    expect(decodeWatchTail(tail)).toBeUndefined();
  });

  it.for([
    { name: 'an event cut inside its JSON', tail: '{"type":"ADDED","object":{"metadata":{"na' },
    { name: 'an event cut before its object', tail: '{"type":"MODIFIED",' },
  ])('throws LASSO_WATCH_TRUNCATED for $name, naming the request and size', ({ tail }) => {
    let thrown: unknown;
    try {
      decodeWatchTail(tail, 'watch configmaps');
    } catch (error) {
      thrown = error;
    }
    expect(isLassoError(thrown, 'LASSO_WATCH_TRUNCATED')).toBe(true);
    expect((thrown as Error).message).toBe(
      `watch configmaps: the stream ended inside an event (${tail.length} bytes after the last newline, not a whole event)`,
    );
  });

  it('decodes a whole event that lacks only its newline', () => {
    expect(decodeWatchTail('{"type":"DELETED","object":{"metadata":{"name":"a"}}}')).toEqual({
      type: 'DELETED',
      object: { metadata: { name: 'a' } },
    });
  });

  it('throws for a whole line that is not a watch event, or an ERROR event', () => {
    expect(() => decodeWatchTail('{"object":{}}')).toThrow(/no "type"/);
    expect(() =>
      decodeWatchTail('{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}'),
    ).toThrow(expect.objectContaining({ status: 410 }));
  });
});
