// The annotation a shard ring member publishes its deletion watermarks in (deletion-watermark.ts): JSON
// `{ "<gvkKey>": "<resourceVersion>", "<gvkKey>@<ranges>": "<resourceVersion>" }` (the second form: a watermark it
// inherited for those ranges, `0-3,7` as in the logs), bounded, read defensively (another member's Lease is input).

/** The annotation of a member Lease holding its deletion watermark per kind. */
export const shardWatermarksAnnotation = 'lasso.cattle.io/shard-watermarks';

/** At most this many kinds, each key and resourceVersion at most this long: a Lease stays small. */
const maxKinds = 256;
const maxKeyLength = 1_400;
const maxVersionLength = 64;
const maxAnnotationLength = 64 * 1024;

/** Watermarks by kind (gvkKey -> resourceVersion). */
export type Watermarks = Readonly<Record<string, string>>;

/** The watermark of `kind` for `range`: one inherited for that range, else the kind's. */
export function watermarkFor(
  watermarks: Watermarks,
  kind: string,
  range: number,
): string | undefined {
  for (const [key, version] of Object.entries(watermarks)) {
    const at = key.lastIndexOf('@');
    if (at <= 0 || key.slice(0, at) !== kind) continue;
    if (parseRangeList(key.slice(at + 1)).has(range)) return version;
  }
  return watermarks[kind];
}

function parseRangeList(text: string): Set<number> {
  const ranges = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (match === null) continue;
    const start = Number(match[1]);
    const end = match[2] === undefined ? start : Number(match[2]);
    for (let range = start; range <= end && range - start < 65_536; range++) ranges.add(range);
  }
  return ranges;
}

/** Encode `watermarks` (kinds beyond the bounds are left out: their gainers replay nothing, as before). */
export function encodeWatermarks(watermarks: ReadonlyMap<string, string>): string {
  const out: Record<string, string> = {};
  let kinds = 0;
  for (const [kind, version] of [...watermarks].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (kinds >= maxKinds) break;
    if (kind.length > maxKeyLength || version.length > maxVersionLength || version === '') continue;
    out[kind] = version;
    kinds++;
  }
  return JSON.stringify(out);
}

/**
 * Decode an annotation; undefined when absent. Throws a `TypeError` saying what is wrong for one that is not
 * JSON, too long, not an object of bounded strings: the caller logs it and replays nothing from that Lease.
 */
export function decodeWatermarks(text: string | undefined): Watermarks | undefined {
  if (text === undefined) return undefined;
  if (typeof text !== 'string' || text.length > maxAnnotationLength) {
    throw new TypeError(
      `${shardWatermarksAnnotation}: not a string of at most ${maxAnnotationLength} characters`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TypeError(`${shardWatermarksAnnotation}: not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TypeError(`${shardWatermarksAnnotation}: not a JSON object`);
  }
  const entries = Object.entries(parsed);
  if (entries.length > maxKinds) {
    throw new TypeError(`${shardWatermarksAnnotation}: more than ${maxKinds} kinds`);
  }
  const out: Record<string, string> = Object.create(null);
  for (const [kind, version] of entries) {
    if (
      kind.length > maxKeyLength ||
      typeof version !== 'string' ||
      version === '' ||
      version.length > maxVersionLength
    ) {
      throw new TypeError(
        `${shardWatermarksAnnotation}: kind ${JSON.stringify(kind.slice(0, 80))} has no valid resourceVersion`,
      );
    }
    out[kind] = version;
  }
  return Object.freeze(out);
}
