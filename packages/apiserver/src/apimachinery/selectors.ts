// Label and field selectors as kube-apiserver parses and matches them; ports the lexer and parser of
// k8s.io/apimachinery/pkg/labels/selector.go and the term splitting of pkg/fields/selector.go.
import { labelValueMessages, qualifiedNameMessages, quoteGo } from './name-validation.ts';

/** One parsed label requirement; `values` are sorted and unique (kube's `sets.String`). */
export type LabelRequirement = {
  key: string;
  operator: 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';
  values: string[];
};

/** One parsed field requirement; `field` and `value` are taken verbatim (no trimming), as kube does. */
export type FieldRequirement = { field: string; operator: '=' | '==' | '!='; value: string };

/** A selector that kube-apiserver would reject; `message` is kube's wording (sent as a 400 BadRequest). */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

// ---- label selector lexer ----

type TokenKind =
  | 'identifier'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar'
  | 'end'
  | 'error';

interface Token {
  kind: TokenKind;
  literal: string;
}

const keywords: Readonly<Record<string, TokenKind>> = {
  ')': 'closedPar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'greaterThan',
  in: 'in',
  '<': 'lessThan',
  '!=': 'notEquals',
  notin: 'notIn',
  '(': 'openPar',
};

const isWhitespace = (ch: string): boolean =>
  ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string): boolean => '=!(),><'.includes(ch);

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  for (;;) {
    while (position < input.length && isWhitespace(input.charAt(position))) position++;
    if (position >= input.length) {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    const ch = input.charAt(position);
    if (isSpecialSymbol(ch)) {
      // Longest known symbol, as scanSpecialSymbol: extend while the buffer stays a known token.
      let buffer = '';
      let last: Token | undefined;
      while (position < input.length && isSpecialSymbol(input.charAt(position))) {
        const next = buffer + input.charAt(position);
        const kind = keywords[next];
        if (kind !== undefined) {
          last = { kind, literal: next };
        } else if (last !== undefined) {
          break;
        }
        buffer = next;
        position++;
      }
      tokens.push(last ?? { kind: 'error', literal: `error expected: keyword found '${buffer}'` });
      continue;
    }
    const start = position;
    while (
      position < input.length &&
      !isWhitespace(input.charAt(position)) &&
      !isSpecialSymbol(input.charAt(position))
    ) {
      position++;
    }
    const word = input.slice(start, position);
    const kind = word === 'in' || word === 'notin' ? (keywords[word] as TokenKind) : 'identifier';
    tokens.push({ kind, literal: word });
  }
}

// ---- label selector parser ----

/** field.ErrorList.ToAggregate().Error(): one message alone, several in brackets. */
function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}

function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(quoteGo).join(', ')}}`;
}

class LabelParser {
  readonly #tokens: Token[];
  #position = 0;

  constructor(input: string) {
    this.#tokens = lex(input);
  }

  // In the Values context `in` and `notin` are plain identifiers (so `in=notin` parses).
  #lookahead(values: boolean): Token {
    const token = this.#tokens[this.#position] ?? { kind: 'end', literal: '' };
    if (values && (token.kind === 'in' || token.kind === 'notIn'))
      return { kind: 'identifier', literal: token.literal };
    return token;
  }

  #consume(values: boolean): Token {
    const token = this.#lookahead(values);
    if (this.#position < this.#tokens.length - 1) this.#position++;
    return token;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const token = this.#lookahead(true);
      if (token.kind === 'end') return requirements;
      if (token.kind !== 'identifier' && token.kind !== 'doesNotExist') {
        throw new SelectorParseError(
          `found '${token.literal}', expected: !, identifier, or 'end of string'`,
        );
      }
      try {
        requirements.push(this.#parseRequirement());
      } catch (error) {
        if (error instanceof SelectorParseError) {
          throw new SelectorParseError(`unable to parse requirement: ${error.message}`);
        }
        throw error;
      }
      const after = this.#consume(true);
      if (after.kind === 'end') return requirements;
      if (after.kind === 'comma') {
        const next = this.#lookahead(true);
        if (next.kind !== 'identifier' && next.kind !== 'doesNotExist') {
          throw new SelectorParseError(`found '${next.literal}', expected: identifier after ','`);
        }
      } else {
        throw new SelectorParseError(`found '${after.literal}', expected: ',' or 'end of string'`);
      }
    }
  }

  #parseRequirement(): LabelRequirement {
    let operator: LabelRequirement['operator'] | undefined;
    let token = this.#consume(true);
    if (token.kind === 'doesNotExist') {
      operator = '!';
      token = this.#consume(true);
    }
    if (token.kind !== 'identifier')
      throw new SelectorParseError(`found '${token.literal}', expected: identifier`);
    const key = token.literal;
    const keyErrors = qualifiedNameMessages(key);
    if (keyErrors.length > 0) {
      throw new SelectorParseError(
        `<nil>: Invalid value: ${quoteGo(key)}: ${keyErrors.join('; ')}`,
      );
    }
    const next = this.#lookahead(true).kind;
    if (operator === '!') return newRequirement(key, '!', []);
    if (next === 'end' || next === 'comma') return newRequirement(key, 'exists', []);

    operator = this.#parseOperator();
    const values =
      operator === 'in' || operator === 'notin' ? this.#parseValues() : this.#parseExactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  #parseOperator(): LabelRequirement['operator'] {
    const token = this.#consume(false);
    switch (token.kind) {
      case 'in':
        return 'in';
      case 'notIn':
        return 'notin';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'notEquals':
        return '!=';
      case 'greaterThan':
        return 'gt';
      case 'lessThan':
        return 'lt';
      default:
        throw new SelectorParseError(
          `found '${token.literal}', expected: in, notin, =, ==, !=, gt, lt`,
        );
    }
  }

  #parseValues(): Set<string> {
    const open = this.#consume(true);
    if (open.kind !== 'openPar')
      throw new SelectorParseError(`found '${open.literal}' expected: '('`);
    const first = this.#lookahead(true);
    if (first.kind === 'identifier' || first.kind === 'comma') {
      const values = this.#parseIdentifierList();
      // kube reports the token seen before the list here, not the one that failed.
      if (this.#consume(true).kind !== 'closedPar') {
        throw new SelectorParseError(`found '${first.literal}', expected: ')'`);
      }
      return values;
    }
    if (first.kind === 'closedPar') {
      this.#consume(true);
      return new Set(['']);
    }
    throw new SelectorParseError(`found '${first.literal}', expected: ',', ')' or identifier`);
  }

  #parseIdentifierList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const token = this.#consume(true);
      if (token.kind === 'identifier') {
        values.add(token.literal);
        const next = this.#lookahead(true);
        if (next.kind === 'comma') continue;
        if (next.kind === 'closedPar') return values;
        throw new SelectorParseError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (token.kind === 'comma') {
        // `(,x)`, `(x,)` and `(x,,y)` each contribute the empty value.
        if (values.size === 0) values.add('');
        const next = this.#lookahead(true);
        if (next.kind === 'closedPar') {
          values.add('');
          return values;
        }
        if (next.kind === 'comma') {
          this.#consume(true);
          values.add('');
        }
        continue;
      }
      throw new SelectorParseError(`found '${token.literal}', expected: ',', or identifier`);
    }
  }

  #parseExactValue(): Set<string> {
    const next = this.#lookahead(true);
    if (next.kind === 'end' || next.kind === 'comma') return new Set(['']);
    const token = this.#consume(true);
    if (token.kind === 'identifier') return new Set([token.literal]);
    throw new SelectorParseError(`found '${token.literal}', expected: identifier`);
  }
}

const int64Pattern = /^[+-]?\d+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** strconv.ParseInt(value, 10, 64), or undefined when Go would fail. */
function parseInt64(value: string): bigint | undefined {
  if (!int64Pattern.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed < int64Min || parsed > int64Max ? undefined : parsed;
}

// labels.NewRequirement: the checks on values once the operator is known.
function newRequirement(
  key: string,
  operator: LabelRequirement['operator'],
  values: string[],
): LabelRequirement {
  const errors: string[] = [];
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    errors.push(
      `values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`,
    );
  }
  if ((operator === '=' || operator === '==' || operator === '!=') && values.length !== 1) {
    errors.push(
      `values: Invalid value: ${goStringSlice(values)}: exact-match compatibility requires one single value`,
    );
  }
  if (operator === 'gt' || operator === 'lt') {
    if (values.length !== 1) {
      errors.push(
        `values: Invalid value: ${goStringSlice(values)}: for 'Gt', 'Lt' operators, exactly one value is required`,
      );
    }
    values.forEach((value, index) => {
      if (parseInt64(value) === undefined) {
        errors.push(
          `values[${index}]: Invalid value: ${quoteGo(value)}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
      }
    });
  }
  values.forEach((value, index) => {
    const messages = labelValueMessages(value);
    if (messages.length > 0) {
      errors.push(
        `values[${index}][${key}]: Invalid value: ${quoteGo(value)}: ${messages.join('; ')}`,
      );
    }
  });
  if (errors.length > 0) throw new SelectorParseError(aggregate(errors));
  return { key, operator, values };
}

/**
 * Parse a `labelSelector` query value with kube-apiserver's grammar: `a=b`, `a==b`, `a!=b`,
 * `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, joined by commas (AND). The empty string
 * selects everything (no requirements).
 *
 * Throws {@link SelectorParseError} with kube's message (e.g. `unable to parse requirement: ...`).
 */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  return new LabelParser(selector).parse();
}

/** True when `labels` satisfy every requirement (absent labels match `!=`, `notin` and `!`). */
export function matchesLabelSelector(
  requirements: readonly LabelRequirement[],
  labels: Record<string, string> | undefined,
): boolean {
  const present = (key: string): boolean => labels !== undefined && Object.hasOwn(labels, key);
  return requirements.every(({ key, operator, values }) => {
    const value = present(key) ? labels?.[key] : undefined;
    switch (operator) {
      case 'in':
      case '=':
      case '==':
        return value !== undefined && values.includes(value);
      case 'notin':
      case '!=':
        return value === undefined || !values.includes(value);
      case 'exists':
        return value !== undefined;
      case '!':
        return value === undefined;
      case 'gt':
      case 'lt': {
        if (value === undefined || values.length !== 1) return false;
        const actual = parseInt64(value);
        const bound = parseInt64(values[0] ?? '');
        if (actual === undefined || bound === undefined) return false;
        return operator === 'gt' ? actual > bound : actual < bound;
      }
      default:
        return false;
    }
  });
}

// ---- field selectors ----

// Commas escaped by a backslash are data; the backslash stays for unescapeValue.
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let index = 0; index < selector.length; index++) {
    const ch = selector.charAt(index);
    if (inSlash) inSlash = false;
    else if (ch === '\\') inSlash = true;
    else if (ch === ',') {
      terms.push(selector.slice(start, index));
      start = index + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): FieldRequirement | undefined {
  for (let index = 0; index < term.length; index++) {
    for (const operator of ['!=', '==', '='] as const) {
      if (term.startsWith(operator, index)) {
        return {
          field: term.slice(0, index),
          operator,
          value: term.slice(index + operator.length),
        };
      }
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let result = '';
  let inSlash = false;
  for (const ch of value) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      result += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw new SelectorParseError(
        `invalid field selector: unescaped character in value: ${ch.codePointAt(0) ?? 0}`,
      );
    } else {
      result += ch;
    }
  }
  if (inSlash) throw new SelectorParseError('invalid field selector: invalid escape sequence: \\');
  return result;
}

/**
 * Parse a `fieldSelector` query value: comma-separated `field=value`, `field==value`,
 * `field!=value` terms; `\,`, `\=` and `\\` escape data in values. Which fields a resource supports
 * (`metadata.name`, `metadata.namespace`, ...) is the server's check, not this parser's.
 *
 * Throws {@link SelectorParseError} with kube's message (`invalid selector: '...'; can't understand '...'`).
 */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const parsed = splitTerm(term);
    if (parsed === undefined) {
      throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${term}'`);
    }
    requirements.push({ ...parsed, value: unescapeValue(parsed.value) });
  }
  return requirements;
}

/** True when `fields` satisfy every requirement; an absent field reads as the empty string (as in kube). */
export function matchesFieldSelector(
  requirements: readonly FieldRequirement[],
  fields: Record<string, string>,
): boolean {
  return requirements.every(({ field, operator, value }) => {
    const actual = Object.hasOwn(fields, field) ? (fields[field] ?? '') : '';
    return operator === '!=' ? actual !== value : actual === value;
  });
}
