// Names in generated code: type names from schema paths, property keys quoted when they are not identifiers,
// string literals, and the deterministic resolution of two paths that would give the same name.

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// Words that cannot name a binding (a token constant); a property key may be any of them unquoted.
const reserved = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally ' +
    'for function if import in instanceof new null return super switch this throw true try typeof var void ' +
    'while with yield let static implements interface package private protected public await'
  ).split(' '),
);

/** `key` as a property name: bare when it is an identifier, quoted otherwise. */
export function propertyKey(key: string): string {
  return identifier.test(key) ? key : stringLiteral(key);
}

/** A single-quoted TypeScript string literal of `value`. */
export function stringLiteral(value: string): string {
  let out = "'";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "'" || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x2028 || code === 0x2029 || code === 0x7f) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else out += char;
  }
  return `${out}'`;
}

/** The PascalCase form of a schema key or kind: words split at anything but letters and digits. */
export function pascalCase(value: string): string {
  const words = value.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  const joined = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  if (joined === '') return 'Field';
  return /^[0-9]/.test(joined) ? `N${joined}` : joined;
}

/** The camelCase form of a PascalCase type name: `Icecream` → `icecream`, `URLMap` → `urlMap`. */
export function camelCase(typeName: string): string {
  const leading = /^[A-Z]+/.exec(typeName)?.[0] ?? '';
  if (leading.length <= 1) return typeName.charAt(0).toLowerCase() + typeName.slice(1);
  if (leading.length === typeName.length) return typeName.toLowerCase();
  // The last capital of a run starts the next word (URLMap: URL + Map).
  const keep = /[a-z]/.test(typeName.charAt(leading.length)) ? leading.length - 1 : leading.length;
  return typeName.slice(0, keep).toLowerCase() + typeName.slice(keep);
}

/** A binding name that is not a reserved word. */
export function bindingName(name: string): string {
  return reserved.has(name) ? `${name}_` : name;
}

/**
 * Hands out unique names: the first to ask for a name gets it, later ones get it with the lowest free number
 * appended (`Name2`, `Name3`). Callers ask in a deterministic order, so the result is deterministic.
 */
export class NameTable {
  readonly #taken = new Set<string>();

  constructor(reservedNames: Iterable<string> = []) {
    for (const name of reservedNames) this.#taken.add(name);
  }

  claim(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}
