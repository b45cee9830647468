// kube-apiserver's strict decoding (`fieldValidation`): the duplicate fields of a JSON document, found while
// reading it (JSON.parse keeps the last value silently); go-format.ts renders them as kube's messages do.

/** A field named twice in one JSON object, with where its first occurrence sits in document order. */
export interface DuplicateField {
  /** The path in kube's notation: `spec.paused`, `spec.containers[0].image`, `[1].path`. */
  path: string;
  /** The position of the duplicate in document order (comparable with {@link FieldPositions}). */
  position: number;
}

/** Every field's first position in document order, by path. */
export type FieldPositions = ReadonlyMap<string, number>;

/** What {@link scanFields} finds in a document. */
export interface FieldScan {
  duplicates: DuplicateField[];
  positions: FieldPositions;
}

type Frame =
  | { kind: 'object'; path: string; keys: Set<string>; key: string | undefined }
  | { kind: 'array'; path: string; index: number };

function childPath(frame: Frame | undefined, key: string): string {
  if (frame === undefined) return key;
  return frame.path === '' ? key : `${frame.path}.${key}`;
}

/**
 * The duplicate fields of the JSON text `text` (already known to parse) and each field's first
 * position. Iterative on purpose: documents may nest thousands deep.
 */
export function scanFields(text: string): FieldScan {
  const duplicates: DuplicateField[] = [];
  const positions = new Map<string, number>();
  const stack: Frame[] = [];
  let counter = 0;
  // The path the next value takes: set by a key, or by an array slot.
  let pending: string | undefined = '';
  let i = 0;
  const readString = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const valueStarts = (): string => {
    const top = stack[stack.length - 1];
    if (top?.kind === 'array') {
      const path = `${top.path}[${top.index}]`;
      top.index++;
      return path;
    }
    return pending ?? '';
  };
  while (i < text.length) {
    const char = text[i]!;
    if (char === '{' || char === '[') {
      const path = valueStarts();
      stack.push(
        char === '{'
          ? { kind: 'object', path, keys: new Set(), key: undefined }
          : { kind: 'array', path, index: 0 },
      );
      i++;
      continue;
    }
    if (char === '}' || char === ']') {
      stack.pop();
      i++;
      continue;
    }
    if (char === '"') {
      const top = stack[stack.length - 1];
      // A string in key position is followed by a colon.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      let k = j + 1;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      if (top?.kind === 'object' && text[k] === ':') {
        const key = readString();
        const path = childPath(top, key);
        counter++;
        if (top.keys.has(key)) duplicates.push({ path, position: counter });
        else {
          top.keys.add(key);
          if (!positions.has(path)) positions.set(path, counter);
        }
        pending = path;
        i = k + 1;
        continue;
      }
      valueStarts();
      readString();
      continue;
    }
    if (char === ',' || char === ':' || /\s/.test(char)) {
      i++;
      continue;
    }
    // A number or a literal.
    valueStarts();
    while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  }
  return { duplicates, positions };
}

/**
 * The strict-decoding errors of a typed decode, in document order: duplicate fields, then unknown
 * ones, interleaved by position. A duplicate inside an unknown field is not reported (the typed decoder
 * skips unknown fields whole).
 */
export function strictErrorsInOrder(scan: FieldScan, unknown: readonly string[]): string[] {
  const under = (path: string, field: string): boolean =>
    path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
  const entries: Array<{ position: number; text: string }> = [];
  for (const duplicate of scan.duplicates) {
    if (unknown.some((field) => under(duplicate.path, field))) continue;
    entries.push({ position: duplicate.position, text: `duplicate field "${duplicate.path}"` });
  }
  for (const field of unknown) {
    entries.push({
      position: scan.positions.get(field) ?? Number.MAX_SAFE_INTEGER,
      text: `unknown field "${field}"`,
    });
  }
  return entries.sort((a, b) => a.position - b.position).map((entry) => entry.text);
}

/** The `Warning` header value for one strict-decoding finding (`299 - "unknown field \"x\""`). */
export function strictWarning(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
