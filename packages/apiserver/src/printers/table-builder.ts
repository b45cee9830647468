// Server-side printing: the meta.k8s.io Table kubectl asks for with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`, for one object, a list and each watch event,
// with the built-in printers' columns, a CRD's additionalPrinterColumns, or kube's default columns.

import { goValueString } from '../apimachinery/go-format.ts';
import { isRecord } from '../apimachinery/objects.ts';
import { badRequest, notAcceptable } from '../apimachinery/status.ts';
import { builtinPrinter, defaultPrinter, nameColumnDefinition, since } from './builtin-printers.ts';
import type { TableColumnDefinition, TablePrinter } from './cells.ts';

type Json = Record<string, unknown>;

/** What each row carries besides its cells (`metav1.IncludeObjectPolicy`). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A Table request: the meta.k8s.io version asked for, the row objects and the response media type. */
export interface TableRequest {
  version: 'v1' | 'v1beta1';
  includeObject: IncludeObject;
  /** `application/json` or `application/yaml`: how the Table itself is encoded. */
  mediaType: string;
}

/** A CRD version's `additionalPrinterColumns` entry. */
export interface CustomColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

interface MediaRange {
  type: string;
  parameters: Map<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  return accept
    .split(',')
    .map((clause) => {
      const [type = '', ...rest] = clause.split(';').map((part) => part.trim());
      const parameters = new Map<string, string>();
      for (const part of rest) {
        const index = part.indexOf('=');
        if (index > 0)
          parameters.set(part.slice(0, index).trim().toLowerCase(), part.slice(index + 1).trim());
      }
      return { type: type.toLowerCase(), parameters };
    })
    .filter((range) => range.type !== '');
}

const encodable = new Set(['application/json', 'application/yaml']);

/**
 * Whether `accept` asks for a Table: the first clause the server can answer decides, as kube-apiserver
 * negotiates. A Table clause needs `as=Table;g=meta.k8s.io` with `v=v1` or `v=v1beta1`; a clause
 * without `as` (plain objects) that comes first wins over a later Table clause. Undefined when no Table
 * is asked for: the caller answers as it would without this module (and its own 406 rules).
 * `includeObject` comes from the query (`Metadata` when absent); an unknown value is kube's 400.
 * When every clause asks for a transformed form (`as=...`) the server does not have, the answer is
 * kube's 406 listing the media types objects are served in (custom resources too list protobuf).
 */
export function tableRequest(
  accept: string | undefined,
  query: URLSearchParams,
): TableRequest | undefined {
  if (accept === undefined || accept === '') return undefined;
  const ranges = parseAccept(accept);
  for (const range of ranges) {
    const as = range.parameters.get('as');
    if (as === undefined) {
      // A plain clause the server serves ends the search: it prefers plain objects.
      if (
        encodable.has(range.type) ||
        range.type === 'application/vnd.kubernetes.protobuf' ||
        range.type === '*/*' ||
        range.type === 'application/*'
      ) {
        return undefined;
      }
      continue;
    }
    if (as !== 'Table' || range.parameters.get('g') !== 'meta.k8s.io') continue;
    const version = range.parameters.get('v');
    if (version !== 'v1' && version !== 'v1beta1') continue;
    if (!encodable.has(range.type)) continue;
    return { version, includeObject: includeObjectOf(query), mediaType: range.type };
  }
  if (ranges.length > 0 && ranges.every((range) => range.parameters.has('as'))) {
    throw notAcceptable([
      'application/json',
      'application/yaml',
      'application/vnd.kubernetes.protobuf',
    ]);
  }
  return undefined;
}

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get('includeObject') ?? '';
  if (value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: "${value}": must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** Parse one simple JSONPath step list: `.a.b`, `['a']`, `[0]`, `[*]`, `[?(@.k=="v")]`. */
type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; value: string | number | boolean | undefined };

function parsePath(expression: string): Step[] {
  let source = expression.trim();
  if (source.startsWith('{') && source.endsWith('}')) source = source.slice(1, -1).trim();
  if (source.startsWith('$')) source = source.slice(1);
  const steps: Step[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index];
    if (char === '.') {
      const match = /^\.([^.[\]]*)/.exec(source.slice(index));
      const name = match?.[1] ?? '';
      if (name !== '') steps.push({ kind: 'field', name });
      index += match?.[0].length ?? 1;
      continue;
    }
    if (char === '[') {
      const end = source.indexOf(']', index);
      if (end < 0) throw new SyntaxError(`unclosed [ in ${expression}`);
      const inner = source.slice(index + 1, end).trim();
      index = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) {
        const filter = /^@((?:\.[^.=!<>\s]+)+)\s*(?:==\s*(.+))?$/.exec(inner.slice(2, -1).trim());
        if (filter === null) throw new SyntaxError(`unsupported filter in ${expression}`);
        const raw = filter[2]?.trim();
        let value: string | number | boolean | undefined;
        if (raw === undefined) value = undefined;
        else if (/^'.*'$|^".*"$/.test(raw)) value = raw.slice(1, -1);
        else if (raw === 'true' || raw === 'false') value = raw === 'true';
        else value = Number(raw);
        steps.push({ kind: 'filter', path: parsePath(filter[1]!), value });
      } else throw new SyntaxError(`unsupported subscript [${inner}] in ${expression}`);
      continue;
    }
    const match = /^([^.[\]]+)/.exec(source.slice(index));
    steps.push({ kind: 'field', name: match![1]! });
    index += match![0].length;
  }
  return steps;
}

function evaluate(steps: Step[], roots: unknown[]): unknown[] {
  let current = roots;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (step.kind === 'field') {
        if (isRecord(value) && step.name in value) next.push(value[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(value)) {
          const at = step.index < 0 ? value.length + step.index : step.index;
          if (at >= 0 && at < value.length) next.push(value[at]);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(value)) next.push(...value);
        else if (isRecord(value)) next.push(...Object.values(value));
      } else if (Array.isArray(value)) {
        for (const item of value) {
          const found = evaluate(step.path, [item]);
          if (
            step.value === undefined
              ? found.length > 0
              : found.some((entry) => entry === step.value)
          ) {
            next.push(item);
          }
        }
      }
    }
    current = next;
  }
  return current;
}

/** The value a JSONPath names in `object` (its first match), or undefined. */
export function jsonPathValue(object: unknown, expression: string): unknown {
  return evaluate(parsePath(expression), [object])[0];
}

function customCell(type: string, value: unknown, nowMs: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      // Go's fmt of the decoded value is what kube's JSONPath printer writes for a string column.
      return typeof value === 'string' ? value : goValueString(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : since(value, nowMs);
    }
    default:
      return null;
  }
}

/**
 * The printer of a CRD version: Name, then its additionalPrinterColumns (Age from creationTimestamp
 * when it declares none), cells found by JSONPath and typed as the column says.
 */
export function customResourcePrinter(columns: CustomColumn[] | undefined): TablePrinter {
  const declared: CustomColumn[] =
    columns === undefined || columns.length === 0
      ? [
          {
            name: 'Age',
            type: 'date',
            description: 'CreationTimestamp is the server time when this object was created.',
            jsonPath: '.metadata.creationTimestamp',
          },
        ]
      : columns;
  // This reader covers field, index, wildcard and `==` filter steps; kube's also reads recursive descent,
  // slices and richer filters. A column it cannot read prints empty (as kube prints a column that finds
  // nothing) instead of failing every `kubectl get` of the resource with a 500.
  const paths = declared.map((entry): Step[] | undefined => {
    try {
      return parsePath(entry.jsonPath);
    } catch {
      return undefined;
    }
  });
  return {
    columns: [
      nameColumnDefinition,
      ...declared.map(
        (entry): TableColumnDefinition => ({
          name: entry.name,
          type: entry.type,
          format: entry.format ?? '',
          description:
            entry.description ??
            `Custom resource definition column (in JSONPath format): ${entry.jsonPath}`,
          priority: entry.priority ?? 0,
        }),
      ),
    ],
    cells(object, nowMs) {
      const metadata = isRecord(object.metadata) ? object.metadata : {};
      return [
        typeof metadata.name === 'string' ? metadata.name : '',
        ...declared.map((entry, index) => {
          const path = paths[index];
          return path === undefined
            ? null
            : customCell(entry.type, evaluate(path, [object])[0], nowMs);
        }),
      ];
    },
  };
}

/** The printer for a served resource: a built-in printer, the CRD's columns, or kube's default. */
export function printerFor(
  group: string,
  resource: string,
  options: { builtin: boolean; customColumns?: CustomColumn[] },
): TablePrinter {
  if (!options.builtin) return customResourcePrinter(options.customColumns);
  return builtinPrinter(group, resource) ?? defaultPrinter;
}

/**
 * The printer for a served resource (`ResourceInfo`): the built-in printer or default columns for a
 * built-in kind, the columns its CRD (looked up by `crdOf(plural.group)`) declares for a custom one.
 */
export function printerForResource(
  info: { group: string; resource: string; version: string; builtin: boolean },
  crdOf: (name: string) => unknown,
): TablePrinter {
  if (info.builtin) return printerFor(info.group, info.resource, { builtin: true });
  const columns = crdColumns(crdOf(`${info.resource}.${info.group}`), info.version);
  return customResourcePrinter(columns);
}

/** The additionalPrinterColumns a CRD object declares for `version` (undefined when it has none). */
export function crdColumns(crd: unknown, version: string): CustomColumn[] | undefined {
  if (!isRecord(crd) || !isRecord(crd.spec) || !Array.isArray(crd.spec.versions)) return undefined;
  const entry = crd.spec.versions.find(
    (candidate) => isRecord(candidate) && candidate.name === version,
  );
  if (!isRecord(entry) || !Array.isArray(entry.additionalPrinterColumns)) return undefined;
  return entry.additionalPrinterColumns.filter(isRecord).map((column) => ({
    name: String(column.name ?? ''),
    type: String(column.type ?? 'string'),
    jsonPath: String(column.jsonPath ?? ''),
    ...(typeof column.format === 'string' ? { format: column.format } : {}),
    ...(typeof column.description === 'string' ? { description: column.description } : {}),
    ...(typeof column.priority === 'number' ? { priority: column.priority } : {}),
  }));
}

/** The metadata fields a PartialObjectMetadata row keeps (all of ObjectMeta). */
function partialObject(object: Json, version: string): Json {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: isRecord(object.metadata) ? object.metadata : {},
  };
}

function rowObject(object: Json, request: TableRequest): Json | null {
  if (request.includeObject === 'None') return null;
  if (request.includeObject === 'Object') return object;
  return partialObject(object, request.version);
}

function rowOf(printer: TablePrinter, object: Json, request: TableRequest, nowMs: number): Json {
  return { cells: printer.cells(object, nowMs), object: rowObject(object, request) };
}

/**
 * The Table for a response body: a list (`items`) gets one row per item and the list's
 * resourceVersion, continue and remainingItemCount; one object gets one row and its resourceVersion.
 * `nowMs` is the server clock's now (ages are computed against it).
 */
export function toTable(
  body: Json,
  printer: TablePrinter,
  request: TableRequest,
  nowMs: number,
): Json {
  const metadata: Json = {};
  const source = isRecord(body.metadata) ? body.metadata : {};
  let rows: Json[];
  if (Array.isArray(body.items)) {
    for (const key of ['resourceVersion', 'continue', 'remainingItemCount']) {
      if (source[key] !== undefined && source[key] !== '') metadata[key] = source[key];
    }
    rows = body.items.filter(isRecord).map((item) => rowOf(printer, item, request, nowMs));
  } else {
    if (typeof source.resourceVersion === 'string')
      metadata.resourceVersion = source.resourceVersion;
    rows = [rowOf(printer, body, request, nowMs)];
  }
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${request.version}`,
    metadata,
    columnDefinitions: printer.columns.map((entry) => ({ ...entry })),
    rows,
  };
}

/** A watch event as the server writes it. */
export interface TableWatchEvent {
  type: string;
  object: unknown;
}

/**
 * Turn a watch's events into Table events, as kube-apiserver does for `kubectl get -w`: each object
 * becomes a one-row Table; only the first carries the column definitions (later ones send null).
 * ERROR events keep their Status; a BOOKMARK becomes an empty Table with the bookmark's resourceVersion.
 */
export function createTableWatchTransform(
  printer: TablePrinter,
  request: TableRequest,
  now: () => number,
): (event: TableWatchEvent) => TableWatchEvent {
  let first = true;
  return (event) => {
    if (event.type === 'ERROR' || !isRecord(event.object)) return event;
    if (event.type === 'BOOKMARK') {
      const metadata = isRecord(event.object.metadata) ? event.object.metadata : {};
      return {
        type: event.type,
        object: {
          kind: 'Table',
          apiVersion: `meta.k8s.io/${request.version}`,
          metadata:
            typeof metadata.resourceVersion === 'string'
              ? { resourceVersion: metadata.resourceVersion }
              : {},
          columnDefinitions: null,
          rows: [],
        },
      };
    }
    const table = toTable(event.object, printer, request, now());
    if (!first) table.columnDefinitions = null;
    first = false;
    return { type: event.type, object: table };
  };
}
