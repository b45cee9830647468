// A bounded string intern table: values repeated across cached objects (namespace, apiVersion, kind, timestamps,
// label values) are kept once instead of once per object (issue 22 item 4, bytes per cached object).

/** Options of {@link createInternTable}. */
export interface InternTableOptions {
  /** Most strings held at once (both generations together); default 4096, at least 2. */
  maxEntries?: number | undefined;
  /** Longer strings are returned as given, never held; default 64, at least 1. */
  maxLength?: number | undefined;
}

/** Returns one shared instance for equal strings, within the table's bounds. */
export interface InternTable {
  /** `value` itself, or an equal string seen earlier (the one the table holds). */
  intern(value: string): string;
  /** Whether the table holds a string equal to `value` now (without counting as a use). */
  has(value: string): boolean;
  /** Number of strings held now (at most `maxEntries`). */
  readonly size: number;
}

/**
 * Create a bounded intern table. It holds at most `maxEntries` strings of at most `maxLength` characters in two
 * generations: new strings enter the young one; when it is full it becomes the old one and the previous old one is
 * dropped; a string found in the old generation moves back to the young one. So what keeps recurring stays, hostile
 * input (a stream of unique values) can never grow the table past its bound, and the worst case it retains is
 * about `maxEntries * (maxLength + 80)` bytes (strings are held as copies, never as slices of a larger string).
 *
 * @example
 * ```ts
 * const table = createInternTable({ maxEntries: 1024 });
 * const a = table.intern(JSON.parse('"2026-01-01T00:00:00Z"') as string);
 * const b = table.intern(JSON.parse('"2026-01-01T00:00:00Z"') as string);
 * // a === b, and b is the instance the table held first: one copy on the heap, however many objects use it
 * ```
 */
export function createInternTable(options: InternTableOptions = {}): InternTable {
  const maxEntries = options.maxEntries ?? 4096;
  const maxLength = options.maxLength ?? 64;
  if (!Number.isInteger(maxEntries) || maxEntries < 2) {
    throw new RangeError(
      `createInternTable: maxEntries must be an integer >= 2, got ${maxEntries}`,
    );
  }
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`createInternTable: maxLength must be an integer >= 1, got ${maxLength}`);
  }
  const generation = Math.floor(maxEntries / 2);
  let young = new Map<string, string>();
  let old = new Map<string, string>();
  const admit = (value: string): void => {
    if (young.size >= generation) {
      old = young;
      young = new Map();
    }
    young.set(value, value);
  };
  return {
    intern(value) {
      if (value.length > maxLength) return value;
      const held = young.get(value);
      if (held !== undefined) return held;
      const aged = old.get(value);
      if (aged !== undefined) {
        old.delete(aged);
        admit(aged);
        return aged;
      }
      // A copy: a string cut from a larger one (a slice of a response body) would keep that whole body alive for
      // as long as the table holds it. The copy holds `value`'s characters only (JSON.parse's strings already do).
      const copy = ` ${value}`.slice(1);
      admit(copy);
      return copy;
    },
    has(value) {
      return young.has(value) || old.has(value);
    },
    get size() {
      return young.size + old.size;
    },
  };
}
