// KEP-5866 shard selectors: the `shardRange(<key>, '<start>', '<end>') || …` text a client sends as
// `shardSelector`, its parse (the grammar and the messages of k8s.io/apiserver pkg/sharding Parse), its
// canonical form (what a server echoes in `metadata.shardInfo.selector`) and the range check.
// size: one grammar: the tokenizer, the parser and its upstream error messages, and the canonical printer are one unit.
import { LassoError } from '../errors.ts';
import { fnv1a64Halves } from './hash.ts';

/** The two object fields a shard selector may hash (k8s.io/apimachinery pkg/sharding ResolveFieldValue). */
export type ShardKey = 'object.metadata.uid' | 'object.metadata.namespace';

/** The end of the hash space, 2^64: the only bound written with 17 hex digits. */
export const shardHashSpaceEnd: bigint = 1n << 64n;

/** A range `[start, end)` of the 64-bit hash space; `0 <= start < end <= 2^64`. */
export interface ShardRange {
  readonly start: bigint;
  readonly end: bigint;
}

/** A parsed shard selector: one key and the ranges it ORs (at least one). */
export interface ShardSelector {
  readonly key: ShardKey;
  readonly ranges: readonly ShardRange[];
}

/** A shard selector text the KEP-5866 grammar refuses; `message` is the server's own text for it. */
export class ShardSelectorError extends LassoError {
  constructor(message: string) {
    super('LASSO_SHARD_SELECTOR_INVALID', message);
    this.name = 'ShardSelectorError';
  }
}

const supportedKeys: readonly string[] = ['object.metadata.uid', 'object.metadata.namespace'];

// cel-go parser.Parser's default expressionSizeCodePointLimit.
const celCodePointLimit = 100_000;

/**
 * A range bound as the selector writes it: `0x` and 16 lowercase hex digits, or `0x10000000000000000` for
 * 2^64.
 *
 * @example
 * ```ts
 * import { formatShardBound } from '@lasso/core/sharding';
 *
 * formatShardBound(1n << 63n); // '0x8000000000000000'
 * ```
 */
export function formatShardBound(value: bigint): string {
  if (value < 0n || value > shardHashSpaceEnd) {
    throw new RangeError(`shard bound ${value} is outside [0, 2^64]`);
  }
  return `0x${value.toString(16).padStart(16, '0')}`;
}

function checkSelector(selector: ShardSelector): void {
  if (!supportedKeys.includes(selector.key)) {
    throw new RangeError(
      `selector.key must be object.metadata.uid or object.metadata.namespace, got ${JSON.stringify(selector.key)}`,
    );
  }
  if (selector.ranges.length === 0) throw new RangeError('selector.ranges must not be empty');
  for (const range of selector.ranges) {
    if (
      typeof range.start !== 'bigint' ||
      typeof range.end !== 'bigint' ||
      range.start < 0n ||
      range.end > shardHashSpaceEnd ||
      range.start >= range.end
    ) {
      throw new RangeError(
        `selector.ranges must satisfy 0 <= start < end <= 2^64, got [${String(range.start)}, ${String(range.end)})`,
      );
    }
  }
}

/**
 * The canonical text of a selector: what a client sends as `shardSelector` and what a KEP-5866 server
 * echoes in `metadata.shardInfo.selector`. Ranges keep their order. Throws `RangeError` for an unsupported
 * key, no ranges, or a range that is empty or outside the hash space.
 *
 * @example
 * ```ts
 * import { formatShardSelector } from '@lasso/core/sharding';
 *
 * formatShardSelector({ key: 'object.metadata.uid', ranges: [{ start: 0n, end: 1n << 63n }] });
 * // "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
 * ```
 */
export function formatShardSelector(selector: ShardSelector): string {
  checkSelector(selector);
  return selector.ranges
    .map(
      (range) =>
        `shardRange(${selector.key}, '${formatShardBound(range.start)}', '${formatShardBound(range.end)}')`,
    )
    .join(' || ');
}

// --- parsing -------------------------------------------------------------------------------------------
// The server parses the text as a CEL expression and walks the tree; only calls of shardRange joined by
// || are accepted. This reads the CEL expressions that can reach those checks (identifiers, selects, calls,
// literals, parentheses, unary and binary operators) so a refusal names the same check kube-apiserver's
// does; text that is no CEL at all gets a "CEL parse error:" whose detail is ours, not ANTLR's.

type Node =
  | { kind: 'call'; fn: string; args: Node[] }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; operand: Node; field: string }
  | { kind: 'literal'; value: string | number | boolean | null; goType: string }
  | { kind: 'list' };

// cel-go common/ast ExprKind values, printed by the server with %v.
const exprKind: Record<Node['kind'], number> = {
  call: 1,
  ident: 3,
  list: 4,
  literal: 5,
  select: 7,
};

type Token =
  | { type: 'ident'; text: string; at: number }
  | { type: 'string'; value: string; goType: string; at: number }
  | { type: 'number'; value: number; goType: string; at: number }
  | { type: 'punct'; text: string; at: number }
  | { type: 'end'; at: number };

class CelSyntaxError extends Error {}

const punctuation = ['||', '&&', '==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', ',', '.'];
const punctuation1 = new Set(['+', '-', '*', '/', '%', '!', '?', ':']);
const escapes: Record<string, string> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\u0007',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
  '?': '?',
};

// Identifiers cel-go refuses as a name (its reservedIds; true, false, null and in are tokens of their own).
const reservedIdentifiers = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * A CEL string or bytes literal starting at `at` with `opening` (an optional b and r prefix, then ', ", '''
 * or """): raw ones keep backslashes, triple-quoted ones may span lines.
 */
function readStringLiteral(
  text: string,
  at: number,
  opening: string,
): { value: string; goType: string; end: number } {
  const prefix = opening.replace(/['"]/g, '');
  const quote = opening.slice(prefix.length);
  const raw = /[rR]/.test(prefix);
  const unrecognized = (): never => {
    throw new CelSyntaxError(`Syntax error: token recognition error at: '${text.slice(at)}'`);
  };
  let value = '';
  let end = at + opening.length;
  for (;;) {
    if (end >= text.length) unrecognized();
    if (text.startsWith(quote, end)) break;
    const current = text[end]!;
    if (quote.length === 1 && (current === '\n' || current === '\r')) unrecognized();
    if (current !== '\\' || raw) {
      value += current;
      end++;
      continue;
    }
    const simple = escapes[text[end + 1] ?? ''];
    if (simple !== undefined) {
      value += simple;
      end += 2;
      continue;
    }
    const sized = /^(?:[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2})/.exec(
      text.slice(end + 1, end + 10),
    );
    if (sized === null) return unrecognized();
    const digits = sized[0];
    const code = /^[0-3]/.test(digits)
      ? Number.parseInt(digits, 8)
      : Number.parseInt(digits.slice(1), 16);
    if (code > 0x10ffff) unrecognized();
    value += String.fromCodePoint(code);
    end += 1 + digits.length;
  }
  return { value, goType: /[bB]/.test(prefix) ? '[]uint8' : 'string', end: end + quote.length };
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    // CEL's whitespace is these five; anything else between tokens is no CEL.
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f') {
      index++;
      continue;
    }
    if (text.startsWith('//', index)) {
      const newline = text.indexOf('\n', index);
      index = newline < 0 ? text.length : newline;
      continue;
    }
    const at = index;
    const opening = /^(?:[bB][rR]?|[rR])?(?:'''|"""|'|")/.exec(text.slice(index, index + 5));
    if (opening !== null) {
      const literal = readStringLiteral(text, at, opening[0]);
      tokens.push({ type: 'string', value: literal.value, goType: literal.goType, at });
      index = literal.end;
      continue;
    }
    if (/[A-Za-z_]/.test(char)) {
      let end = index + 1;
      while (end < text.length && /[A-Za-z0-9_]/.test(text[end]!)) end++;
      tokens.push({ type: 'ident', text: text.slice(index, end), at });
      index = end;
      continue;
    }
    if (/[0-9]/.test(char)) {
      const match = /^(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)[uU]?/.exec(
        text.slice(index),
      )!;
      const literal = match[0];
      const unsigned = /[uU]$/.test(literal);
      const body = unsigned ? literal.slice(0, -1) : literal;
      const isFloat = !body.startsWith('0x') && /[.eE]/.test(body);
      tokens.push({
        type: 'number',
        value: Number(body),
        goType: isFloat ? 'float64' : unsigned ? 'uint64' : 'int64',
        at,
      });
      index += literal.length;
      continue;
    }
    const two = text.slice(index, index + 2);
    const matched = punctuation.find((candidate) => candidate === two || candidate === char);
    if (matched !== undefined) {
      tokens.push({ type: 'punct', text: matched, at });
      index += matched.length;
      continue;
    }
    if (punctuation1.has(char)) {
      tokens.push({ type: 'punct', text: char, at });
      index++;
      continue;
    }
    throw new CelSyntaxError(`Syntax error: token recognition error at: '${char}'`);
  }
  tokens.push({ type: 'end', at: text.length });
  return tokens;
}

const binaryLevels: ReadonlyArray<readonly string[]> = [
  ['||'],
  ['&&'],
  ['==', '!=', '<', '<=', '>', '>='],
  ['+', '-'],
  ['*', '/', '%'],
];

function parseCel(text: string): Node {
  const tokens = tokenize(text);
  let position = 0;
  let reserved: string | undefined;
  const peek = (): Token => tokens[position]!;
  const isPunct = (text: string): boolean => {
    const token = peek();
    return token.type === 'punct' && token.text === text;
  };
  const unexpected = (): never => {
    const token = peek();
    const shown =
      token.type === 'end'
        ? '<EOF>'
        : token.type === 'ident' || token.type === 'punct'
          ? token.text
          : text.slice(token.at).split(/\s/)[0];
    throw new CelSyntaxError(`Syntax error: mismatched input '${shown}'`);
  };
  const expect = (punct: string): void => {
    if (!isPunct(punct)) unexpected();
    position++;
  };
  const binary = (level: number): Node => {
    if (level === binaryLevels.length) return unary();
    let left = binary(level + 1);
    for (;;) {
      const token = peek();
      if (token.type !== 'punct' || !binaryLevels[level]!.includes(token.text)) return left;
      position++;
      const right = binary(level + 1);
      left = { kind: 'call', fn: `_${token.text}_`, args: [left, right] };
    }
  };
  const unary = (): Node => {
    if (isPunct('!') || isPunct('-')) {
      const op = (peek() as { text: string }).text;
      position++;
      return { kind: 'call', fn: op === '!' ? '!_' : '-_', args: [unary()] };
    }
    return member();
  };
  const args = (): Node[] => {
    expect('(');
    const list: Node[] = [];
    if (!isPunct(')')) {
      list.push(expression());
      while (isPunct(',')) {
        position++;
        list.push(expression());
      }
    }
    expect(')');
    return list;
  };
  const member = (): Node => {
    let node = primary();
    for (;;) {
      if (isPunct('.')) {
        position++;
        const token = peek();
        if (token.type !== 'ident') unexpected();
        position++;
        const field = (token as { text: string }).text;
        if (isPunct('(')) {
          // A receiver call (x.f(…)): the server sees function f with the receiver outside its args.
          node = { kind: 'call', fn: field, args: args() };
        } else {
          node = { kind: 'select', operand: node, field };
        }
        continue;
      }
      if (isPunct('[')) {
        position++;
        const index = expression();
        expect(']');
        node = { kind: 'call', fn: '_[_]', args: [node, index] };
        continue;
      }
      return node;
    }
  };
  const primary = (): Node => {
    // A leading dot names from the root scope; the server keeps it in the name (".object.metadata.uid").
    const dotted = isPunct('.') && tokens[position + 1]?.type === 'ident';
    const token = dotted ? tokens[position + 1]! : peek();
    if (token.type === 'ident') {
      position += dotted ? 2 : 1;
      if (!dotted && (token.text === 'true' || token.text === 'false')) {
        return { kind: 'literal', value: token.text === 'true', goType: 'bool' };
      }
      if (!dotted && token.text === 'null') {
        return { kind: 'literal', value: null, goType: 'structpb.NullValue' };
      }
      // cel-go reports this while walking the tree, after every syntax error of the text.
      if (reservedIdentifiers.has(token.text)) reserved ??= `reserved identifier: ${token.text}`;
      const name = dotted ? `.${token.text}` : token.text;
      if (isPunct('(')) return { kind: 'call', fn: name, args: args() };
      return { kind: 'ident', name };
    }
    if (token.type === 'string') {
      position++;
      return { kind: 'literal', value: token.value, goType: token.goType };
    }
    if (token.type === 'number') {
      position++;
      return { kind: 'literal', value: token.value, goType: token.goType };
    }
    if (isPunct('(')) {
      position++;
      const inner = expression();
      expect(')');
      return inner;
    }
    if (isPunct('[')) {
      position++;
      if (!isPunct(']')) {
        expression();
        while (isPunct(',')) {
          position++;
          expression();
        }
      }
      expect(']');
      return { kind: 'list' };
    }
    return unexpected();
  };
  const expression = (): Node => {
    const condition = binary(0);
    if (!isPunct('?')) return condition;
    position++;
    const whenTrue = expression();
    expect(':');
    const whenFalse = expression();
    return { kind: 'call', fn: '_?_:_', args: [condition, whenTrue, whenFalse] };
  };
  const root = expression();
  if (peek().type !== 'end') unexpected();
  if (reserved !== undefined) throw new CelSyntaxError(reserved);
  return root;
}

/** Go's %q of a string (ASCII printable kept, the rest escaped) — close enough for the texts here. */
function goQuote(value: string): string {
  return JSON.stringify(value);
}

function fieldPath(node: Node): string {
  if (node.kind === 'ident') return node.name;
  if (node.kind === 'select') return `${fieldPath(node.operand)}.${node.field}`;
  throw new ShardSelectorError(
    `shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind ${exprKind[node.kind]}`,
  );
}

function hexBound(node: Node, name: 'hexStart' | 'hexEnd'): string {
  if (node.kind !== 'literal') {
    throw new ShardSelectorError(
      `${name} must be a string literal (e.g. '0xff'), got expression kind ${exprKind[node.kind]}`,
    );
  }
  if (node.goType !== 'string' || typeof node.value !== 'string') {
    throw new ShardSelectorError(`${name} must be a string literal, got ${node.goType}`);
  }
  const text = node.value;
  if (!text.startsWith('0x')) {
    throw new ShardSelectorError(`${name} must have '0x' prefix, got ${goQuote(text)}`);
  }
  const digits = text.slice(2);
  if (digits === '') throw new ShardSelectorError(`${name}: hex value is required after '0x'`);
  if (digits.length > 17) {
    throw new ShardSelectorError(
      `${name}: hex value too long (${digits.length} chars, max 17): ${goQuote(digits)}`,
    );
  }
  for (const char of digits) {
    if (!/[0-9a-f]/.test(char)) {
      throw new ShardSelectorError(
        `${name}: invalid hex character ${goQuote(char)} in ${goQuote(text)}`,
      );
    }
  }
  if (digits.length === 17) {
    if (text !== '0x10000000000000000') {
      throw new ShardSelectorError(
        `${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ${goQuote(text)}`,
      );
    }
  } else if (digits.length !== 16) {
    throw new ShardSelectorError(
      `${name} must be a 0x-prefixed 16-digit hex value, got ${goQuote(text)} (did you mean ${goQuote(`0x${digits.padStart(16, '0')}`)}?)`,
    );
  }
  return text;
}

function walk(node: Node, out: Array<{ key: string; start: string; end: string }>): void {
  if (node.kind !== 'call') {
    throw new ShardSelectorError(
      `unexpected expression kind ${exprKind[node.kind]}; expected shardRange() call or || operator`,
    );
  }
  if (node.fn === '_||_') {
    walk(node.args[0]!, out);
    walk(node.args[1]!, out);
    return;
  }
  if (node.fn !== 'shardRange') {
    throw new ShardSelectorError(
      `unsupported function ${goQuote(node.fn)}; only shardRange() and || are allowed`,
    );
  }
  if (node.args.length !== 3) {
    throw new ShardSelectorError(
      `shardRange() requires exactly 3 arguments, got ${node.args.length}`,
    );
  }
  const key = fieldPath(node.args[0]!);
  if (!supportedKeys.includes(key)) {
    throw new ShardSelectorError(
      `unsupported field path ${goQuote(key)}; supported: object.metadata.uid, object.metadata.namespace`,
    );
  }
  const start = hexBound(node.args[1]!, 'hexStart');
  const end = hexBound(node.args[2]!, 'hexEnd');
  // Equal-width bounds order as strings; 2^64 is the only wider one.
  const less = start.length !== end.length ? start.length < end.length : start < end;
  if (!less)
    throw new ShardSelectorError(`shard range start ${start} must be less than end ${end}`);
  out.push({ key, start, end });
}

/**
 * Parse a `shardSelector` as a KEP-5866 server does (kube-apiserver 1.36, k8s.io/apiserver pkg/sharding
 * Parse): one or more `shardRange(<key>, '<start>', '<end>')` joined by `||`, the same key in each, bounds
 * as `0x` + 16 lowercase hex digits (or `0x10000000000000000`), start below end, the whole at most 100,000
 * code points (cel-go's limit: about 1,265 ranges). Throws {@link ShardSelectorError} with the server's message
 * for anything else.
 *
 * @example
 * ```ts
 * import { parseShardSelector } from '@lasso/core/sharding';
 *
 * const selector = parseShardSelector(
 *   "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
 * );
 * selector.ranges[0]?.end === 1n << 63n; // true
 * ```
 */
export function parseShardSelector(text: string): ShardSelector {
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new ShardSelectorError(
      'empty shard selector is not allowed; omit the parameter for unfiltered lists',
    );
  }
  // cel-go's parser (v0.26.0, as kube 1.36 builds it) refuses a source over this many code points before
  // reading it: the only bound on how many ranges one selector may OR.
  let size = 0;
  for (const _ of trimmed) size++;
  if (size > celCodePointLimit) {
    throw new ShardSelectorError(
      `CEL parse error: expression code point size exceeds limit: size: ${size}, limit ${celCodePointLimit}`,
    );
  }
  let root: Node;
  try {
    root = parseCel(trimmed);
  } catch (error) {
    if (error instanceof CelSyntaxError) {
      throw new ShardSelectorError(`CEL parse error: ${error.message}`);
    }
    throw error;
  }
  const requirements: Array<{ key: string; start: string; end: string }> = [];
  walk(root, requirements);
  const first = requirements[0]!;
  for (const requirement of requirements.slice(1)) {
    if (requirement.key !== first.key) {
      throw new ShardSelectorError(
        `all shard ranges must use the same field, got ${goQuote(first.key)} and ${goQuote(requirement.key)}`,
      );
    }
  }
  return {
    key: first.key as ShardKey,
    ranges: requirements.map((requirement) => ({
      start: BigInt(requirement.start),
      end: BigInt(requirement.end),
    })),
  };
}

// --- matching ------------------------------------------------------------------------------------------

/**
 * True when `hash` (a value of {@link fnv1a64}) falls in one of the ranges: `start <= hash < end`.
 *
 * @example
 * ```ts
 * import { fnv1a64, shardRangesContain } from '@lasso/core/sharding';
 *
 * shardRangesContain([{ start: 0n, end: 1n << 64n }], fnv1a64('any')); // true
 * ```
 */
export function shardRangesContain(ranges: readonly ShardRange[], hash: bigint): boolean {
  return ranges.some((range) => range.start <= hash && hash < range.end);
}

/**
 * A compiled check of a selector's ranges against a field value (the object's uid or namespace), hashing
 * without allocating: the client-side filter runs it on every object it receives.
 *
 * @example
 * ```ts
 * import { createShardMatcher } from '@lasso/core/sharding';
 *
 * const inLowerHalf = createShardMatcher({
 *   key: 'object.metadata.uid',
 *   ranges: [{ start: 0n, end: 1n << 63n }],
 * });
 * inLowerHalf('6f1c0ef5-6f1d-4a55-9fd8-0d6f1e8a1b2c'); // true or false, the same everywhere
 * ```
 */
export function createShardMatcher(selector: ShardSelector): (value: string) => boolean {
  checkSelector(selector);
  // Sorted and merged (overlapping or touching ranges joined), so a binary search finds the one range that can
  // hold a hash: a replica of a 256-range ring owns tens of scattered ranges, checked on every object it receives.
  const merged: Array<{ start: bigint; end: bigint }> = [];
  for (const range of [...selector.ranges].sort((a, b) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : 0,
  )) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range.start <= last.end) {
      if (range.end > last.end) last.end = range.end;
    } else {
      merged.push({ start: range.start, end: range.end });
    }
  }
  // Each bound as its high and low 32 bits; 2^64 has high half 2^32, above every hash.
  const count = merged.length;
  const startHi = merged.map((range) => Number(range.start >> 32n));
  const startLo = merged.map((range) => Number(range.start & 0xffffffffn));
  const endHi = merged.map((range) => Number(range.end >> 32n));
  const endLo = merged.map((range) => Number(range.end & 0xffffffffn));
  const halves: [number, number] = [0, 0];
  return (value: string): boolean => {
    fnv1a64Halves(value, halves);
    const hi = halves[0];
    const lo = halves[1];
    // The last range starting at or before the hash.
    let low = 0;
    let high = count - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const sHi = startHi[middle] as number;
      if (hi > sHi || (hi === sHi && lo >= (startLo[middle] as number))) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (found < 0) return false;
    const eHi = endHi[found] as number;
    return hi < eHi || (hi === eHi && lo < (endLo[found] as number));
  };
}

/**
 * The value a selector key names on an object: its `metadata.uid` or `metadata.namespace`, `''` when
 * absent (a cluster-scoped object's namespace), as the server resolves it.
 *
 * @example
 * ```ts
 * import { shardKeyValue } from '@lasso/core/sharding';
 *
 * shardKeyValue({ metadata: { namespace: 'team-a' } }, 'object.metadata.namespace'); // 'team-a'
 * ```
 */
export function shardKeyValue(object: { metadata?: unknown }, key: ShardKey): string {
  const metadata = object.metadata;
  if (typeof metadata !== 'object' || metadata === null) return '';
  const value = (metadata as Record<string, unknown>)[
    key === 'object.metadata.uid' ? 'uid' : 'namespace'
  ];
  return typeof value === 'string' ? value : '';
}
