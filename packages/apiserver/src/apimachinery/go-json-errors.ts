// Go's encoding/json syntax errors, which kube-apiserver puts in its 400 messages (`json parse error: invalid
// character '}' looking for beginning of object key string`). JSON.parse says the same things in other
// words, so a body it refuses is scanned again here the way Go's scanner walks it, byte by byte.

/** Go's quoteChar: a byte in single quotes, escaped as strconv.Quote would escape the rune it stands for. */
function quoteChar(byte: number): string {
  if (byte === 0x27) return `'\\''`;
  if (byte === 0x22) return `'"'`;
  const named: Record<number, string> = {
    7: '\\a',
    8: '\\b',
    12: '\\f',
    10: '\\n',
    13: '\\r',
    9: '\\t',
    11: '\\v',
    92: '\\\\',
  };
  const hex = (width: number) => byte.toString(16).padStart(width, '0');
  let shown: string;
  if (named[byte] !== undefined) shown = named[byte];
  else if (byte < 0x20 || byte === 0x7f) shown = `\\x${hex(2)}`;
  // A byte past ASCII is taken as the rune U+0080..U+00FF: the C1 controls and NBSP are not printable.
  else if (byte >= 0x80 && byte <= 0xa0) shown = `\\u${hex(4)}`;
  else shown = String.fromCharCode(byte);
  return `'${shown}'`;
}

class GoSyntaxError extends Error {}

function fail(byte: number, context: string): never {
  throw new GoSyntaxError(`invalid character ${quoteChar(byte)} ${context}`);
}

const endOfInput = 'unexpected end of JSON input';

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

function isHex(byte: number): boolean {
  return isDigit(byte) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46);
}

/** A cursor over the body that reports Go's end-of-input error when it runs out. */
class Scanner {
  index = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  peek(): number | undefined {
    return this.bytes[this.index];
  }

  next(): number {
    const byte = this.bytes[this.index];
    if (byte === undefined) throw new GoSyntaxError(endOfInput);
    this.index += 1;
    return byte;
  }

  /** The next byte that is not white space. */
  nextSignificant(): number {
    let byte = this.next();
    while (isSpace(byte)) byte = this.next();
    return byte;
  }
}

function scanString(scanner: Scanner): void {
  for (;;) {
    const byte = scanner.next();
    if (byte === 0x22) return;
    if (byte === 0x5c) {
      const escaped = scanner.next();
      if (escaped === 0x75) {
        for (let digit = 0; digit < 4; digit++) {
          const hex = scanner.next();
          if (!isHex(hex)) fail(hex, 'in \\u hexadecimal character escape');
        }
      } else if (!'bfnrt\\/"'.includes(String.fromCharCode(escaped))) {
        fail(escaped, 'in string escape code');
      }
    } else if (byte < 0x20) {
      fail(byte, 'in string literal');
    }
  }
}

/** A number whose first byte (`-` or a digit) is read; stops before the byte that ends it. */
function scanNumber(scanner: Scanner, first: number): void {
  let byte = first;
  if (byte === 0x2d) {
    byte = scanner.next();
    if (!isDigit(byte)) fail(byte, 'in numeric literal');
  }
  if (byte !== 0x30) while (isDigit(scanner.peek() ?? -1)) scanner.next();
  if (scanner.peek() === 0x2e) {
    scanner.next();
    const digit = scanner.next();
    if (!isDigit(digit)) fail(digit, 'after decimal point in numeric literal');
    while (isDigit(scanner.peek() ?? -1)) scanner.next();
  }
  if (scanner.peek() === 0x65 || scanner.peek() === 0x45) {
    scanner.next();
    let digit = scanner.next();
    if (digit === 0x2b || digit === 0x2d) digit = scanner.next();
    if (!isDigit(digit)) fail(digit, 'in exponent of numeric literal');
    while (isDigit(scanner.peek() ?? -1)) scanner.next();
  }
}

function scanLiteral(scanner: Scanner, word: string): void {
  for (const expected of word.slice(1)) {
    const byte = scanner.next();
    if (byte !== expected.charCodeAt(0)) fail(byte, `in literal ${word} (expecting '${expected}')`);
  }
}

/** Go's scanner refuses documents nested deeper than this (maxNestingDepth). */
const maxNestingDepth = 10_000;

/** A scalar value; `first` is its first significant byte. */
function scanScalar(scanner: Scanner, first: number): void {
  if (first === 0x22) scanString(scanner);
  else if (first === 0x2d || isDigit(first)) scanNumber(scanner, first);
  else if (first === 0x74) scanLiteral(scanner, 'true');
  else if (first === 0x66) scanLiteral(scanner, 'false');
  else if (first === 0x6e) scanLiteral(scanner, 'null');
  else fail(first, 'looking for beginning of value');
}

/** An object key and its colon, from the byte that should open the key. */
function scanKey(scanner: Scanner, byte: number): void {
  if (byte !== 0x22) fail(byte, 'looking for beginning of object key string');
  scanString(scanner);
  const colon = scanner.nextSignificant();
  if (colon !== 0x3a) fail(colon, 'after object key');
}

/**
 * One top-level value, with an explicit stack of open objects and arrays as Go's scanner keeps (no
 * recursion: a body may nest far deeper than the JavaScript stack).
 */
function scanDocument(scanner: Scanner): void {
  const open: Array<'object' | 'array'> = [];
  let byte = scanner.nextSignificant();
  for (;;) {
    // Begin a value at `byte`.
    if (byte === 0x7b || byte === 0x5b) {
      open.push(byte === 0x7b ? 'object' : 'array');
      if (open.length > maxNestingDepth) fail(byte, 'exceeded max depth');
      const first = scanner.nextSignificant();
      const closing = byte === 0x7b ? 0x7d : 0x5d;
      if (first !== closing) {
        if (byte === 0x7b) {
          scanKey(scanner, first);
          byte = scanner.nextSignificant();
        } else {
          byte = first;
        }
        continue;
      }
      open.pop();
    } else {
      scanScalar(scanner, byte);
    }
    // After a value: close containers until one expects another element.
    for (;;) {
      const container = open[open.length - 1];
      if (container === undefined) return;
      const after = scanner.nextSignificant();
      if (container === 'object') {
        if (after === 0x7d) {
          open.pop();
          continue;
        }
        if (after !== 0x2c) fail(after, 'after object key:value pair');
        scanKey(scanner, scanner.nextSignificant());
      } else {
        if (after === 0x5d) {
          open.pop();
          continue;
        }
        if (after !== 0x2c) fail(after, 'after array element');
      }
      byte = scanner.nextSignificant();
      break;
    }
  }
}

/**
 * The message of the error Go's json.Unmarshal returns for `body`, or undefined when Go's scanner finds no
 * syntax error in it (a body JSON.parse refused for another reason, such as its nesting depth).
 */
export function goJsonSyntaxError(body: Uint8Array): string | undefined {
  const scanner = new Scanner(body);
  try {
    scanDocument(scanner);
    for (let byte = scanner.peek(); byte !== undefined; byte = scanner.peek()) {
      scanner.next();
      if (!isSpace(byte)) fail(byte, 'after top-level value');
    }
    return undefined;
  } catch (error) {
    if (error instanceof GoSyntaxError) return error.message;
    throw error;
  }
}
