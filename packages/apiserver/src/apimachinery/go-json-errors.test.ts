import { describe, expect, it } from 'vitest';
import { goJsonSyntaxError } from './go-json-errors.ts';

const error = (text: string) => goJsonSyntaxError(Buffer.from(text));

describe('goJsonSyntaxError', () => {
  it('finds no error in what Go decodes', () => {
    for (const text of [
      '{}',
      ' [1, -2.5e+3, "a\\u00e9\\n", true, false, null] ',
      '0',
      '{"a":{"b":[]}}',
    ]) {
      expect(error(text)).toBeUndefined();
    }
  });

  it("words each scanner state's error as Go does", () => {
    expect(error('')).toBe('unexpected end of JSON input');
    expect(error('{"apiVersion": "v1", "kind": ')).toBe('unexpected end of JSON input');
    expect(error('x')).toBe("invalid character 'x' looking for beginning of value");
    expect(error('{,}')).toBe("invalid character ',' looking for beginning of object key string");
    expect(error('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(error('{"a":1 "b":2}')).toBe(`invalid character '"' after object key:value pair`);
    expect(error('[1 2]')).toBe("invalid character '2' after array element");
    expect(error('{} {}')).toBe("invalid character '{' after top-level value");
    expect(error('01')).toBe("invalid character '1' after top-level value");
    expect(error('-x')).toBe("invalid character 'x' in numeric literal");
    expect(error('1.e')).toBe("invalid character 'e' after decimal point in numeric literal");
    expect(error('1e+')).toBe('unexpected end of JSON input');
    expect(error('1ex')).toBe("invalid character 'x' in exponent of numeric literal");
    expect(error('tru')).toBe('unexpected end of JSON input');
    expect(error('nul!')).toBe("invalid character '!' in literal null (expecting 'l')");
    expect(error('"a\\x"')).toBe("invalid character 'x' in string escape code");
    expect(error('"\\u12g4"')).toBe("invalid character 'g' in \\u hexadecimal character escape");
    expect(error('"a\nb"')).toBe("invalid character '\\n' in string literal");
    expect(error("'a'")).toBe("invalid character '\\'' looking for beginning of value");
    expect(error('\u0001')).toBe("invalid character '\\x01' looking for beginning of value");
  });
});

describe('goJsonSyntaxError nesting', () => {
  it("refuses nesting past Go's maximum depth without using the JavaScript stack", () => {
    expect(error(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toBeUndefined();
    expect(error(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`)).toBe(
      "invalid character '{' exceeded max depth",
    );
  });
});
