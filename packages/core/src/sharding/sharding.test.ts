import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLassoError } from '../errors.ts';
import {
  createShardMatcher,
  fnv1a64,
  fnv1a64Hex,
  formatShardBound,
  formatShardSelector,
  parseShardSelector,
  type ShardRange,
  ShardSelectorError,
  shardHashSpaceEnd,
  shardKeyValue,
  shardRangesContain,
} from './index.ts';
import vectors from './vectors.json' with { type: 'json' };

// A plain BigInt FNV-1a over Node's own UTF-8 encoder: an independent reference for the two-halves code.
function referenceHash(value: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(value, 'utf8')) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

const uid = 'object.metadata.uid' as const;

describe('fnv1a64', () => {
  it('matches the FNV reference vectors and the upstream test inputs (vectors.json)', () => {
    for (const { input, hex } of [...vectors.fnvSpec, ...vectors.hash]) {
      expect(fnv1a64Hex(input), input).toBe(hex);
      expect(fnv1a64(input)).toBe(BigInt(`0x${hex}`));
    }
  });

  it('always prints 16 lowercase hex digits', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(fnv1a64Hex(value)).toMatch(/^[0-9a-f]{16}$/);
      }),
    );
  });

  it('agrees with a BigInt reference over UTF-8 for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(
        // Any UTF-16 code units: ASCII, 2- and 3-byte characters, pairs and lone surrogates.
        fc
          .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xffff })), {
            maxLength: 40,
          })
          .map((units) => String.fromCharCode(...units)),
        (value) => fnv1a64(value) === referenceHash(value),
      ),
      { numRuns: 300 },
    );
    expect(fnv1a64('\ud800')).toBe(referenceHash('\ufffd'));
    expect(fnv1a64('ns-é-😀')).toBe(referenceHash('ns-é-😀'));
    expect(fnv1a64('\udbff\udfff\ud800x\udc00')).toBe(referenceHash('\udbff\udfff\ud800x\udc00'));
  });
});

describe('shard selectors', () => {
  it('checks ranges as the upstream selector tests do', () => {
    for (const { name, uid: value, start, end, match } of vectors.match) {
      // Upstream builds one end as hash + 'f' (17 digits, numerically past 2^64): clamp it to the space.
      const upper = BigInt(end) > shardHashSpaceEnd ? shardHashSpaceEnd : BigInt(end);
      const selector = { key: uid, ranges: [{ start: BigInt(start), end: upper }] };
      expect(createShardMatcher(selector)(value), name).toBe(match);
      expect(shardRangesContain(selector.ranges, fnv1a64(value)), name).toBe(match);
    }
  });

  it('parses the accepted upstream inputs into their requirements', () => {
    for (const { name, input, requirements } of vectors.parseValid) {
      const selector = parseShardSelector(input);
      expect(
        selector.ranges.map((range) => ({
          key: selector.key,
          start: formatShardBound(range.start),
          end: formatShardBound(range.end),
        })),
        name,
      ).toEqual(requirements);
    }
  });

  it('refuses every rejected upstream input with the server message', () => {
    const messages: Record<string, string> = {};
    for (const { name, input } of vectors.parseInvalid) {
      let thrown: unknown;
      try {
        parseShardSelector(input);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toBeInstanceOf(ShardSelectorError);
      expect(isLassoError(thrown, 'LASSO_SHARD_SELECTOR_INVALID')).toBe(true);
      messages[name] = (thrown as Error).message;
    }
    expect(messages).toMatchInlineSnapshot(`
      {
        "&& operator not allowed": "unsupported function "_&&_"; only shardRange() and || are allowed",
        "comparison operator": "unsupported function "_>_"; only shardRange() and || are allowed",
        "empty after 0x prefix": "hexStart: hex value is required after '0x'",
        "empty string": "empty shard selector is not allowed; omit the parameter for unfiltered lists",
        "hex too long (18 chars)": "hexStart: hex value too long (18 chars, max 17): "000000000000000000"",
        "integer literal instead of string": "hexStart must be a string literal, got int64",
        "invalid hex char": "hexStart: invalid hex character "g" in "0x0g"",
        "missing 0x prefix on end": "hexEnd must have '0x' prefix, got "8000000000000000"",
        "missing 0x prefix on start": "hexStart must have '0x' prefix, got "0000000000000000"",
        "mixed field keys": "all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"",
        "name field unsupported": "unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace",
        "nested function call": "hexStart must be a string literal (e.g. '0xff'), got expression kind 1",
        "short hex rejected": "hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)",
        "short hex rejected on end": "hexEnd must be a 0x-prefixed 16-digit hex value, got "0xff" (did you mean "0x00000000000000ff"?)",
        "start equals end": "shard range start 0x8000000000000000 must be less than end 0x8000000000000000",
        "start greater than end": "shard range start 0xffffffffffffffff must be less than end 0x0000000000000000",
        "unknown function": "unsupported function "invalidFunc"; only shardRange() and || are allowed",
        "unsupported field": "unsupported field path "object.metadata.labels"; supported: object.metadata.uid, object.metadata.namespace",
        "wrong number of arguments": "shardRange() requires exactly 3 arguments, got 2",
      }
    `);
  });

  it('round-trips the upstream canonical texts unchanged', () => {
    for (const text of vectors.roundTrip) {
      expect(formatShardSelector(parseShardSelector(text))).toBe(text);
    }
  });

  it('formats any valid ranges to text that parses back to them', () => {
    const bound = fc.bigInt({ min: 0n, max: shardHashSpaceEnd });
    const range = fc
      .tuple(bound, bound)
      .filter(([a, b]) => a !== b)
      .map(([a, b]): ShardRange => (a < b ? { start: a, end: b } : { start: b, end: a }));
    fc.assert(
      fc.property(
        fc.constantFrom(uid, 'object.metadata.namespace' as const),
        fc.array(range, { minLength: 1, maxLength: 6 }),
        (key, ranges) => {
          const text = formatShardSelector({ key, ranges });
          expect(parseShardSelector(text)).toEqual({ key, ranges });
        },
      ),
    );
  });

  it('the compiled matcher agrees with the BigInt range check at and around every bound', () => {
    const bound = fc.bigInt({ min: 0n, max: shardHashSpaceEnd });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(bound, bound), { minLength: 1, maxLength: 4 }),
        fc.string(),
        (pairs, value) => {
          const ranges = pairs
            .filter(([a, b]) => a !== b)
            .map(([a, b]) => (a < b ? { start: a, end: b } : { start: b, end: a }));
          if (ranges.length === 0) return;
          const hash = fnv1a64(value);
          expect(createShardMatcher({ key: uid, ranges })(value)).toBe(
            shardRangesContain(ranges, hash),
          );
          // A range that starts or ends exactly at the hash: [start, end) includes start, excludes end.
          const at = [{ start: hash, end: hash + 1n }];
          expect(createShardMatcher({ key: uid, ranges: at })(value)).toBe(true);
          if (hash > 0n) {
            expect(
              createShardMatcher({ key: uid, ranges: [{ start: 0n, end: hash }] })(value),
            ).toBe(false);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('accepts CEL spellings the server accepts: double quotes, parentheses', () => {
    const selector = parseShardSelector(
      '(shardRange(object.metadata.uid, "0x0000000000000000", "0x8000000000000000"))',
    );
    expect(formatShardSelector(selector)).toBe(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    );
  });

  it("refuses a selector over cel-go's 100,000 code points, the only bound on how many ranges it ORs", () => {
    // k8s.io/apiserver v0.36.3 pkg/sharding/parser.go Parse uses cel-go v0.26.0's parser, whose Parse refuses a
    // source longer than expressionSizeCodePointLimit (default 100_000) before reading it; the size is counted
    // after TrimSpace, in code points.
    const term = (index: number): string =>
      `shardRange(object.metadata.uid, '${formatShardBound(BigInt(index))}', '${formatShardBound(BigInt(index + 1))}')`;
    const joined = (count: number): string =>
      Array.from({ length: count }, (_, index) => term(index)).join(' || ');
    const fits = joined(1_265); // 1,265 terms of 75 code points joined by ' || ': 99,931
    expect([...fits].length).toBe(99_931);
    expect(parseShardSelector(`  ${fits}\n`).ranges).toHaveLength(1_265);
    const over = joined(1_266);
    expect(() => parseShardSelector(over)).toThrow(
      new ShardSelectorError(
        'CEL parse error: expression code point size exceeds limit: size: 100010, limit 100000',
      ),
    );
    // Code points, not UTF-16 units: 99,998 astral characters are 199,996 units and still under the limit.
    expect(() => parseShardSelector('\u{1F600}'.repeat(99_998))).toThrow(/token recognition error/);
    expect(() => parseShardSelector('\u{1F600}'.repeat(100_001))).toThrow(
      'CEL parse error: expression code point size exceeds limit: size: 100001, limit 100000',
    );
  });

  it('reads the CEL spellings the server reads: raw, triple-quoted and escaped strings, comments', () => {
    // cel-go v0.26.0 CEL.g4 STRING (raw r'', triple quotes, \x \u \U and octal escapes) and COMMENT.
    const lowerHalf = { key: uid, ranges: [{ start: 0n, end: 1n << 63n }] };
    expect(
      parseShardSelector(
        "shardRange(object.metadata.uid, r'0x0000000000000000', '''0x8000000000000000''')",
      ),
    ).toEqual(lowerHalf);
    expect(
      parseShardSelector(
        String.raw`shardRange(object.metadata.uid, '\x30x000000000000000\060', "0x800000000000000\u0030")`,
      ),
    ).toEqual(lowerHalf);
    expect(
      parseShardSelector(
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') // first quarter\n" +
          '|| shardRange(object.metadata.uid, R"0x4000000000000000", """0x8000000000000000""")',
      ).ranges,
    ).toEqual([
      { start: 0n, end: 1n << 62n },
      { start: 1n << 62n, end: 1n << 63n },
    ]);
  });

  it('refuses bytes, a root-scoped path, a reserved name and a non-CEL blank as the server does', () => {
    const refusal = (text: string): string => {
      try {
        parseShardSelector(text);
      } catch (error) {
        if (error instanceof ShardSelectorError) return error.message;
        throw error;
      }
      throw new Error(`accepted ${text}`);
    };
    const bounds = "'0x0000000000000000', '0x8000000000000000'";
    expect(refusal(`shardRange(object.metadata.uid, b${bounds})`)).toBe(
      'hexStart must be a string literal, got []uint8',
    );
    expect(refusal(`shardRange(.object.metadata.uid, ${bounds})`)).toBe(
      'unsupported field path ".object.metadata.uid"; supported: object.metadata.uid, object.metadata.namespace',
    );
    // A reserved word is refused as a name, not as a field (object.metadata.namespace is fine).
    expect(refusal(`shardRange(namespace.uid, ${bounds})`)).toBe(
      'CEL parse error: reserved identifier: namespace',
    );
    // Go's TrimSpace drops a no-break space at the ends; between tokens it is no CEL whitespace.
    expect(
      parseShardSelector(`\u00a0shardRange(object.metadata.uid, ${bounds})\u00a0`).ranges,
    ).toHaveLength(1);
    expect(refusal(`shardRange(object.metadata.uid,\u00a0${bounds})`)).toMatch(
      /^CEL parse error: Syntax error: token recognition error/,
    );
  });

  it('bad arguments to formatting throw RangeError naming what is wrong', () => {
    expect(() => formatShardSelector({ key: uid, ranges: [] })).toThrow(/selector.ranges/);
    expect(() => formatShardSelector({ key: uid, ranges: [{ start: 2n, end: 2n }] })).toThrow(
      RangeError,
    );
    expect(() =>
      formatShardSelector({
        key: 'object.metadata.name' as never,
        ranges: [{ start: 0n, end: 1n }],
      }),
    ).toThrow(/selector.key/);
    expect(() => formatShardBound(shardHashSpaceEnd + 1n)).toThrow(RangeError);
  });

  it('reads the uid or namespace of an object, empty when absent', () => {
    expect(shardKeyValue({ metadata: { uid: 'u', namespace: 'n' } }, uid)).toBe('u');
    expect(shardKeyValue({ metadata: { uid: 'u' } }, 'object.metadata.namespace')).toBe('');
    expect(shardKeyValue({}, uid)).toBe('');
  });
});
