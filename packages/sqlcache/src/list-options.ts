// What a list query may ask for (lasso's informer.ListOptions and partition.Partition, in TypeScript shape).

/**
 * Filter operators: lasso's `=`, `!=`, `Exists`, `NotExists`, `In`, `NotIn`, `Lt`, `Gt`, and steve's `Contains`,
 * `NotContains`.
 *
 * @example
 * ```ts
 * const op: FilterOp = 'NotIn';
 * ```
 */
export type FilterOp =
  | '='
  | '!='
  | 'Exists'
  | 'NotExists'
  | 'In'
  | 'NotIn'
  | 'Contains'
  | 'NotContains'
  | 'Lt'
  | 'Gt';

/**
 * One condition on an indexed field or a label (`metadata.labels[key]`).
 *
 * - `=` / `In`: the field equals one of `values`; `!=` / `NotIn`: none of them. With `partial`, `=` and `!=`
 *   match substrings (LIKE with `\`, `_` and `%` escaped).
 * - `Lt` / `Gt`: numeric comparison with the single value (empty fields never match); on a `timestamp` field the
 *   value is an RFC 3339 time.
 * - `Contains` / `NotContains`: an array field (stored joined with `|`) has (or lacks) an element equal to the
 *   single value; on a label they are `=` and `!=`. Text fields and labels only.
 * - `Exists` / `NotExists`: labels only. A label `!=` or `NotIn` also matches objects without the label.
 * - On an `integer`, `real` or `timestamp` field, values are converted to the field's type (`InvalidQueryError`
 *   when one is not of it) and compared as numbers; a missing value matches `!=` and `NotIn` only.
 *
 * @example
 * ```ts
 * const filter: Filter = { field: 'metadata.labels[app.kubernetes.io/name]', op: 'In', values: ['web', 'api'] };
 * ```
 */
export interface Filter {
  /** An indexed field path (`metadata.name`, `spec.nodeName`) or `metadata.labels[key]`. */
  readonly field: string;
  readonly op: FilterOp;
  /** The values to compare with; none for `Exists`/`NotExists`, one for `Lt`/`Gt`/`Contains`/`NotContains`. */
  readonly values?: readonly string[];
  /** Substring match for `=` and `!=`. */
  readonly partial?: boolean;
}

/**
 * Filters OR'ed together; the groups of {@link ListOptions.filters} are AND'ed.
 *
 * @example
 * ```ts
 * // spec.nodeName is n1 OR the object has a `tier` label
 * const group: OrFilter = [
 *   { field: 'spec.nodeName', op: '=', values: ['n1'] },
 *   { field: 'metadata.labels[tier]', op: 'Exists' },
 * ];
 * ```
 */
export type OrFilter = readonly Filter[];

/**
 * One sort key.
 *
 * @example
 * ```ts
 * const sort: SortField[] = [{ field: 'metadata.creationTimestamp', order: 'desc' }, { field: 'metadata.name' }];
 * ```
 */
export interface SortField {
  /**
   * An indexed field path, or any label (`metadata.labels[key]`, declared or not; objects without it sort last).
   * An `integer`, `real` or `timestamp` field sorts as numbers, its missing values last.
   */
  readonly field: string;
  /** Default `'asc'`. */
  readonly order?: 'asc' | 'desc';
}

/**
 * An RBAC scope (lasso's `partition.Partition`): what one grant lets the caller see. Partitions are OR'ed and
 * AND'ed with the filters.
 *
 * - `passthrough`: no restriction at all.
 * - `all` with `namespace`: every object of that namespace; `all` without `namespace` (or with `'*'`): every object.
 * - a `namespace` of `'*'` is every namespace, as lasso and steve read it (never a namespace named `*`).
 * - `names` with `namespace`: those names in that namespace; `names` without `namespace`: those names anywhere.
 * - neither `all` nor any name: nothing.
 *
 * @example
 * ```ts
 * const partitions: Partition[] = [
 *   { namespace: 'team-a', all: true },
 *   { namespace: 'team-b', names: ['settings'] },
 * ];
 * ```
 */
export interface Partition {
  readonly passthrough?: boolean;
  readonly namespace?: string;
  readonly all?: boolean;
  readonly names?: Iterable<string>;
}

/**
 * Options of a SQL list query (`listByOptions`).
 *
 * @example
 * ```ts
 * const options: ListOptions = {
 *   filters: [[{ field: 'metadata.name', op: '=', values: ['web'], partial: true }]],
 *   sort: [{ field: 'metadata.name', order: 'desc' }],
 *   namespace: 'team-a',
 *   pageSize: 100,
 * };
 * ```
 */
export interface ListOptions {
  /** An AND of OR-groups. */
  readonly filters?: readonly OrFilter[] | undefined;
  /** Sort keys, first one first; default `metadata.namespace` then `metadata.name` ascending. */
  readonly sort?: readonly SortField[] | undefined;
  /** Objects per page; none = every matching object. */
  readonly pageSize?: number | undefined;
  /** 1-based page number (with `pageSize`): pages before it are skipped. */
  readonly page?: number | undefined;
  /** The continue token of the previous page of the same query. */
  readonly continue?: string | undefined;
  /** Only this namespace (`''` or `'*'` = every namespace). */
  readonly namespace?: string | undefined;
  /**
   * RBAC scopes, OR'ed. Omitted (`undefined`) or empty: no rows, as lasso's `ListByOptions` answers zero
   * partitions (a caller that forgot the caller's scope sees nothing rather than everything);
   * `[{ passthrough: true }]` = unrestricted. Any number of namespaces compiles to a constant-size query.
   */
  readonly partitions?: readonly Partition[] | undefined;
  /**
   * Fail with `ResourceVersionTooNewError` (retryable) when the cache reflects an older resourceVersion.
   */
  readonly resourceVersion?: string | undefined;
  /**
   * Fields (indexed fields or any label) whose values to count among every object matching the filters,
   * namespace and partitions (steve's summary): one {@link SummaryEntry} each in {@link ListResult.summary}.
   */
  readonly summary?: readonly string[] | undefined;
}

/**
 * The counts of one field's values among the objects a list query matched (steve's summary). Missing and empty
 * values are not counted; a `timestamp` field's values are RFC 3339 texts, a number field's their decimal text.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'Pod' }, fields: ['spec.nodeName'] });
 * const { summary } = store.listByOptions({ summary: ['spec.nodeName'], pageSize: 1, partitions: [{ passthrough: true }] });
 * for (const entry of summary ?? []) console.log(entry.field, entry.counts); // spec.nodeName { n1: 12, n2: 7 }
 * ```
 */
export interface SummaryEntry {
  /** The field as the query named it. */
  readonly field: string;
  /** Value -> number of matching objects with it. */
  readonly counts: Readonly<Record<string, number>>;
}

/**
 * One page of a SQL list query.
 *
 * @example
 * ```ts
 * const store = createSqlStore(openSqlDatabase(), { gvk: { group: '', version: 'v1', kind: 'ConfigMap' } });
 * const result: ListResult<KubeObject> = store.listByOptions({ pageSize: 10, partitions: [{ passthrough: true }] });
 * console.log(result.items.length, result.total, result.continue, result.resourceVersion);
 * ```
 */
export interface ListResult<T> {
  readonly items: T[];
  /** Objects matching the query across all pages, counted in the same read transaction as `items`. */
  readonly total: number;
  /** Token of the next page; undefined on the last page. */
  readonly continue: string | undefined;
  /** The resourceVersion the cache reflected when the page was read. */
  readonly resourceVersion: string;
  /** One entry per field of {@link ListOptions.summary}, in its order; undefined when none was asked. */
  readonly summary?: readonly SummaryEntry[] | undefined;
}
