// The informer's default transform: the object without `metadata.managedFields`, laid out compactly (issue 22
// item 4, bytes per cached object). See the "Memory" section of the README.
import type { KubeObjectLike } from '@lasso/client';
import { createInternTable, type InternTable } from './intern.ts';

type PlainObject = Record<string, unknown>;

/**
 * A constructor of plain objects (prototype `Object.prototype`, so they are indistinguishable from literals).
 * V8 sizes its instances by in-object slack tracking: after the first few, every instance holds exactly as many
 * properties inline as the largest of those did (up to 8 more than its body declares, i.e. 8), with no separate
 * property array. A copy made with a rest pattern (`{ managedFields, ...rest }`) or by JSON.parse keeps some
 * properties in a separate array instead (40 bytes more per object for a ConfigMap's metadata).
 */
function plainObjects(): new () => PlainObject {
  const Plain = function Plain(): void {} as unknown as { prototype: object };
  Plain.prototype = Object.prototype;
  return Plain as unknown as new () => PlainObject;
}

const defineProperty = Object.defineProperty;

/** `target[key] = value` as a data property, also for `__proto__` (an assignment would set the prototype). */
function put(target: PlainObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** The constructors of one kind's compact copies: its top level and its `metadata`. */
interface Layout {
  readonly Top: new () => PlainObject;
  readonly Meta: new () => PlainObject;
}

/** Kinds (apiVersion and kind) whose layout is kept; past this, the kinds not yet seen share one layout. */
export const maxCompactLayouts = 1024;

// Process-wide, so that every transform (every informer, every cache) lays out the objects of a kind with the same
// constructors: the same hidden classes, whatever number of informers the process creates. With constructors per
// transform, each new informer added hidden classes for the same kind, and the code that reads cached objects (key
// and index functions, the store, the DeltaFIFO, handlers) went polymorphic, then megamorphic, and V8 deoptimized
// and recompiled it each time (W3 and W4 create informers round after round). Per kind, not one for all: V8 sizes
// a constructor's instances by its first few (slack tracking), so kinds with more metadata fields than the first
// kind seen would keep some outside the object.
const layouts = new Map<string, Layout>();
let overflowLayout: Layout | undefined;

function newLayout(): Layout {
  return { Top: plainObjects(), Meta: plainObjects() };
}

/** The layout of the objects with this `apiVersion` and `kind` (any other type than string counts as absent). */
function layoutOf(apiVersion: unknown, kind: unknown): Layout {
  const key = `${typeof apiVersion === 'string' ? apiVersion : ''}\u0000${typeof kind === 'string' ? kind : ''}`;
  let layout = layouts.get(key);
  if (layout === undefined) {
    if (layouts.size >= maxCompactLayouts) {
      overflowLayout ??= newLayout();
      return overflowLayout;
    }
    layout = newLayout();
    layouts.set(key, layout);
  }
  return layout;
}

/** Strings held by the default transforms: at most 4096 of at most 64 characters (about 400 KiB at worst). */
const sharedStrings = createInternTable({ maxEntries: 4096, maxLength: 64 });

/**
 * A transform that returns `object` without `metadata.managedFields`, as a compact copy: the top level and
 * `metadata` are new plain objects holding their properties inline (same own enumerable string keys, same order),
 * and strings repeated across objects (`apiVersion`, `kind`, `metadata.namespace`, `metadata.creationTimestamp`)
 * are shared through a bounded intern table. Everything below `metadata` (labels, data, spec, status) is shared
 * with the input; the input is not modified. An object whose `metadata` has no `managedFields` is returned as is
 * (every object from a kube-apiserver 1.18+ has them; a copy made only for the layout would cost each watch event
 * ~0.25 us for ~64 bytes). The layouts are process-wide, one per `apiVersion` and `kind` (at most 1,024 kinds,
 * then one for the rest): the copies of a kind have the same hidden classes whichever transform made them, so
 * each informer can have a transform of its own (the one-entry caches below are per transform) without making
 * the code that reads cached objects polymorphic.
 *
 * @example
 * ```ts
 * declare const listerWatcher: ListerWatcher<KubeObject>;
 * const informer = createSharedIndexInformer(listerWatcher, { name: 'v1, Kind=ConfigMap' });
 * const compact = createCompactTransform<KubeObject>();
 * // a transform of your own replaces the default one: keep the compact layout and drop `status` too
 * informer.setTransform(({ status: _status, ...rest }) => compact(rest as KubeObject));
 * ```
 */
export function createCompactTransform<T extends KubeObjectLike>(
  strings: InternTable = sharedStrings,
): (object: T) => T {
  // One-entry caches in front of the layouts and the table: consecutive objects mostly repeat the previous value.
  let layoutApiVersion: unknown = '';
  let layoutKind: unknown = '';
  let layout = layoutOf('', '');
  let apiVersion = '';
  let kind = '';
  let namespace = '';
  let created = '';
  return (object: T): T => {
    const metadata = (object as { metadata?: unknown } | null | undefined)?.metadata;
    if (typeof metadata !== 'object' || metadata === null || !('managedFields' in metadata)) {
      return object;
    }
    if (Array.isArray(metadata)) return object;
    const input = object as unknown as PlainObject;
    const inputApiVersion = input.apiVersion;
    const inputKind = input.kind;
    if (inputApiVersion !== layoutApiVersion || inputKind !== layoutKind) {
      layout = layoutOf(inputApiVersion, inputKind);
      layoutApiVersion = inputApiVersion;
      layoutKind = inputKind;
    }
    const source = metadata as PlainObject;
    const meta = new layout.Meta();
    for (const key in source) {
      if (key !== 'managedFields') put(meta, key, source[key]);
    }
    const top = new layout.Top();
    for (const key in input) put(top, key, key === 'metadata' ? meta : input[key]);
    // Shared strings, set through named properties (monomorphic): cheaper than tests inside the loops.
    const ns = meta.namespace;
    if (typeof ns === 'string') {
      if (ns !== namespace) namespace = strings.intern(ns);
      meta.namespace = namespace;
    }
    const ts = meta.creationTimestamp;
    if (typeof ts === 'string') {
      if (ts !== created) created = strings.intern(ts);
      meta.creationTimestamp = created;
    }
    const av = top.apiVersion;
    if (typeof av === 'string') {
      if (av !== apiVersion) apiVersion = strings.intern(av);
      top.apiVersion = apiVersion;
    }
    const k = top.kind;
    if (typeof k === 'string') {
      if (k !== kind) kind = strings.intern(k);
      top.kind = kind;
    }
    return top as unknown as T;
  };
}

const defaultTransform = createCompactTransform<KubeObjectLike>();

/**
 * The default transform: `object` without `metadata.managedFields`, as a compact copy (the input is untouched;
 * see {@link createCompactTransform}, which each informer uses for its own default, with the same layouts).
 *
 * @example
 * ```ts
 * const lean = dropManagedFields({ metadata: { name: 'a', managedFields: [] } });
 * // lean.metadata is { name: 'a' }
 * ```
 */
export function dropManagedFields<T extends KubeObjectLike>(object: T): T {
  return defaultTransform(object) as T;
}
