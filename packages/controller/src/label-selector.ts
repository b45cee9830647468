// Label selectors matched against cached objects: the string syntax of apimachinery's labels.Parse and the
// LabelSelector object of metav1.LabelSelectorAsSelector, for the shared controller's lister.
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

/** A label selector: the string syntax (`app=web,tier!=db,env in (a,b),!legacy`) or a metav1 `LabelSelector`. */
export type LabelSelectorInput = string | LabelSelector;

/** Labels of an object; a missing map is empty. */
type Labels = Readonly<Record<string, string>> | undefined;

type Operator = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

/** A compiled selector: true when `labels` match every requirement. */
export type LabelMatcher = (labels: Labels) => boolean;

const everything: LabelMatcher = () => true;

/**
 * Compile `selector` (undefined or empty selects everything). Throws a RangeError naming `where` for a
 * selector that does not parse (labels.Parse's syntax: `=`, `==`, `!=`, `in`, `notin`, `key`, `!key`, `>`, `<`).
 *
 * @example
 * ```ts
 * import { compileLabelSelector } from '@lasso/controller';
 *
 * const web = compileLabelSelector('app=web,tier notin (db)', 'my selector');
 * console.log(web({ app: 'web', tier: 'front' })); // true
 * ```
 */
export function compileLabelSelector(
  selector: LabelSelectorInput | undefined,
  where: string,
): LabelMatcher {
  if (selector === undefined) return everything;
  const requirements =
    typeof selector === 'string'
      ? parseSelector(selector, where)
      : fromObject(selector as unknown, where);
  if (requirements.length === 0) return everything;
  return (labels) => requirements.every((requirement) => matches(requirement, labels ?? {}));
}

function matches(requirement: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = present ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'in':
      return present && requirement.values.includes(value as string);
    case 'notin':
      return !present || !requirement.values.includes(value as string);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present || !/^-?\d+$/.test(value as string)) return false;
      const actual = Number(value);
      const bound = Number(requirement.values[0]);
      return requirement.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function fromObject(selector: unknown, where: string): Requirement[] {
  if (typeof selector !== 'object' || selector === null) {
    throw new TypeError(`${where}: a label selector must be a string or a LabelSelector`);
  }
  const { matchLabels, matchExpressions } = selector as LabelSelector;
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(matchLabels ?? {})) {
    requirements.push({ key, operator: 'in', values: [String(value)] });
  }
  for (const expression of matchExpressions ?? []) {
    const values = expression.values ?? [];
    const operator = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[
      expression.operator as 'In'
    ];
    if (operator === undefined) {
      throw new RangeError(
        `${where}: label selector operator ${JSON.stringify(expression.operator)} is not In, NotIn, Exists or DoesNotExist`,
      );
    }
    const needsValues = operator === 'in' || operator === 'notin';
    if (needsValues !== values.length > 0) {
      throw new RangeError(
        `${where}: label selector operator ${expression.operator} of ${JSON.stringify(expression.key)} ${needsValues ? 'needs values' : 'takes no values'}`,
      );
    }
    requirements.push({ key: expression.key, operator, values });
  }
  return requirements;
}

// Tokens of labels.Parse: identifiers (keys and values), operators and punctuation.
const tokenPattern = /\s*(?:(==|!=|=|>|<|!|\(|\)|,)|([A-Za-z0-9._/-]+))/y;

function tokenize(selector: string, where: string): string[] {
  const tokens: string[] = [];
  tokenPattern.lastIndex = 0;
  while (selector.slice(tokenPattern.lastIndex).trim() !== '') {
    const start = tokenPattern.lastIndex;
    const match = tokenPattern.exec(selector);
    if (match === null) {
      const offset =
        start + selector.slice(start).length - selector.slice(start).trimStart().length;
      throw new RangeError(
        `${where}: label selector ${JSON.stringify(selector)} has an unexpected character at ${offset}`,
      );
    }
    tokens.push(match[1] ?? (match[2] as string));
  }
  return tokens;
}

function parseSelector(selector: string, where: string): Requirement[] {
  const tokens = tokenize(selector, where);
  const requirements: Requirement[] = [];
  let at = 0;
  const fail = (what: string): never => {
    throw new RangeError(`${where}: label selector ${JSON.stringify(selector)}: ${what}`);
  };
  const isIdentifier = (token: string | undefined): token is string =>
    token !== undefined && /^[A-Za-z0-9._/-]+$/.test(token);
  const identifier = (what: string): string => {
    const token = tokens[at];
    if (!isIdentifier(token)) fail(`expected ${what}, found ${token ?? 'the end'}`);
    at++;
    return token as string;
  };
  // A value may be empty (`key=`): the next token is then a comma or the end.
  const value = (): string => (isIdentifier(tokens[at]) ? identifier('a value') : '');
  while (at < tokens.length) {
    if (tokens[at] === '!') {
      at++;
      requirements.push({ key: identifier('a key'), operator: '!', values: [] });
    } else {
      const key = identifier('a key');
      const token = tokens[at];
      if (token === undefined || token === ',') {
        requirements.push({ key, operator: 'exists', values: [] });
      } else if (token === '=' || token === '==' || token === '!=') {
        at++;
        requirements.push({ key, operator: token === '!=' ? 'notin' : 'in', values: [value()] });
      } else if (token === '>' || token === '<') {
        at++;
        const bound = identifier('an integer');
        if (!/^-?\d+$/.test(bound)) fail(`${bound} is not an integer`);
        requirements.push({ key, operator: token === '>' ? 'gt' : 'lt', values: [bound] });
      } else if (token === 'in' || token === 'notin') {
        at++;
        if (tokens[at++] !== '(') fail(`expected ( after ${token}`);
        const values: string[] = [];
        for (;;) {
          values.push(value());
          const next = tokens[at++];
          if (next === ')') break;
          if (next !== ',') fail(`expected , or ) in the values of ${key}`);
        }
        requirements.push({ key, operator: token, values });
      } else {
        fail(`unexpected ${token} after ${key}`);
      }
    }
    if (at < tokens.length) {
      if (tokens[at++] !== ',') fail('expected , after a requirement');
      if (at === tokens.length) fail('expected a requirement after the last ,');
    }
  }
  return requirements;
}
