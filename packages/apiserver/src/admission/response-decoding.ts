// A webhook's 2xx answer decoded as kube-apiserver 1.20's webhook client decodes it, failing with the same
// words. Its codec recognises a body starting with `{` as JSON (Go's encoding/json reads apiVersion/kind
// first, so a syntax error reads as Go's); anything else is read as YAML, converted to JSON, and then fails
// as Go fails to unmarshal a string, number, array or bool into the version/kind struct.
import { isRecord } from '../apimachinery/objects.ts';
import { loadYaml, yamlModule } from '../patch/yaml-module.ts';

const kindStruct =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

const parseError = (detail: string): Error =>
  new Error(`couldn't get version/kind; json parse error: ${detail}`);

/**
 * The parsed answer, or an Error with kube's message (without the `failed to call webhook: ` prefix).
 * `contentType` is the response's header (kube's client falls back to application/json).
 */
export async function decodeWebhookAnswer(text: string, contentType: string): Promise<unknown> {
  if (text.length === 0) {
    return new Error(
      `0-length response with status code: 200 and content type: ${contentType || 'application/json'}`,
    );
  }
  if (/^[ \t\r\n]*\{/.test(text)) {
    const syntax = goJsonSyntaxError(text);
    if (syntax !== undefined) return parseError(syntax);
    return JSON.parse(text) as unknown;
  }
  await loadYaml();
  let value: unknown;
  try {
    value = yamlModule().parse(text);
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : 'invalid YAML';
    return new Error(`error converting YAML to JSON: yaml: ${reason}`);
  }
  if (value === null || value === undefined || isRecord(value)) {
    const kind = isRecord(value) ? value.kind : undefined;
    if (typeof kind !== 'string' || kind === '') {
      return new Error(`Object 'Kind' is missing in '${text}'`);
    }
    return value;
  }
  const goType = Array.isArray(value)
    ? 'array'
    : typeof value === 'number'
      ? 'number'
      : typeof value === 'boolean'
        ? 'bool'
        : 'string';
  return parseError(`json: cannot unmarshal ${goType} into Go value of type ${kindStruct}`);
}

/** A character as Go's JSON scanner quotes it in an error. */
function quoteChar(char: string): string {
  if (char === "'") return "'\\''";
  if (char === '"') return "'\"'";
  const quoted = JSON.stringify(char);
  return `'${quoted.slice(1, -1)}'`;
}

class Syntax extends Error {}

/** Go encoding/json's syntax error for `text`, or undefined when it is valid JSON. */
export function goJsonSyntaxError(text: string): string | undefined {
  let at = 0;
  const isSpace = (c: string | undefined): boolean =>
    c === ' ' || c === '\t' || c === '\n' || c === '\r';
  const skip = (): void => {
    while (isSpace(text[at])) at++;
  };
  const fail = (context: string): never => {
    const char = text[at];
    if (char === undefined) throw new Syntax('unexpected end of JSON input');
    throw new Syntax(`invalid character ${quoteChar(char)} ${context}`);
  };
  const literal = (word: string): void => {
    at++;
    for (const expected of word.slice(1)) {
      if (text[at] !== expected) fail(`in literal ${word} (expecting ${quoteChar(expected)})`);
      at++;
    }
  };
  const digits = (context: string): void => {
    if (!/[0-9]/.test(text[at] ?? '')) fail(context);
    while (/[0-9]/.test(text[at] ?? '')) at++;
  };
  const number = (): void => {
    if (text[at] === '-') {
      at++;
      if (!/[0-9]/.test(text[at] ?? '')) fail('in numeric literal');
    }
    if (text[at] === '0') at++;
    else digits('in numeric literal');
    if (text[at] === '.') {
      at++;
      digits('after decimal point in numeric literal');
    }
    if (text[at] === 'e' || text[at] === 'E') {
      at++;
      if (text[at] === '+' || text[at] === '-') at++;
      digits('in exponent of numeric literal');
    }
  };
  const string = (): void => {
    at++;
    for (;;) {
      const char = text[at];
      if (char === undefined) fail('in string literal');
      if (char === '"') {
        at++;
        return;
      }
      if ((char as string) < ' ') fail('in string literal');
      if (char === '\\') {
        at++;
        const escaped = text[at];
        if (escaped === 'u') {
          at++;
          for (let index = 0; index < 4; index++) {
            if (!/[0-9a-fA-F]/.test(text[at] ?? '')) fail('in \\u hexadecimal character escape');
            at++;
          }
          continue;
        }
        if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) fail('in string escape code');
      }
      at++;
    }
  };
  const value = (): void => {
    skip();
    const char = text[at];
    if (char === '{') {
      at++;
      skip();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        skip();
        if (text[at] !== '"') fail('looking for beginning of object key string');
        string();
        skip();
        if (text[at] !== ':') fail('after object key');
        at++;
        value();
        skip();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === '}') {
          at++;
          return;
        }
        fail('after object key:value pair');
      }
    }
    if (char === '[') {
      at++;
      skip();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (;;) {
        value();
        skip();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === ']') {
          at++;
          return;
        }
        fail('after array element');
      }
    }
    if (char === '"') string();
    else if (char === 't') literal('true');
    else if (char === 'f') literal('false');
    else if (char === 'n') literal('null');
    else if (char === '-' || /[0-9]/.test(char ?? '')) number();
    else fail('looking for beginning of value');
  };
  try {
    value();
    skip();
    if (at < text.length) fail('after top-level value');
    return undefined;
  } catch (error) {
    if (error instanceof Syntax) return error.message;
    throw error;
  }
}
