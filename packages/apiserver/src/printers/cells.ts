// What every built-in printer shares: the Table column shape, kubectl's age and selector texts, the
// Name/Age columns and the printer for kinds kube has no printer for.

/** A column of a Table (`metav1.TableColumnDefinition`). */
export interface TableColumnDefinition {
  name: string;
  /** An OpenAPI type: `string`, `integer`, `number`, `boolean` (custom columns may say `date`). */
  type: string;
  /** An OpenAPI format hint; `name` marks the column that holds the object's name. */
  format: string;
  description: string;
  /** 0 for the default columns, higher for the ones `-o wide` adds. */
  priority: number;
}

/** How one kind is printed: its columns and a row's cells (one per column). */
export interface TablePrinter {
  columns: TableColumnDefinition[];
  cells(object: Record<string, unknown>, nowMs: number): unknown[];
}

/** A decoded JSON object. */
export type Json = Record<string, unknown>;

/** `value` as an object, or an empty one: printers read whatever was stored, never throw. */
export function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : {};
}

/** `value` as an array, or an empty one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` as a string, or empty. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `value` as a whole number, or 0. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/** A column definition without a format. */
export function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
): TableColumnDefinition {
  return { name, type, format: '', description, priority };
}

/** The Name column every printer starts with. */
export const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace; the name of the object. Cannot be updated.',
  priority: 0,
};

/** The Age column: the time since creation. */
export const ageColumn = column(
  'Age',
  'string',
  'CreationTimestamp is the server time when this object was created, shown as the time since.',
);

/**
 * A duration as kubectl shows ages: seconds up to 2 minutes, then minutes (with seconds below 10 m),
 * hours (with minutes below 8 h), days (with hours below 8 d) and years (with days below 8 y).
 * Clocks up to a second apart count as now; further in the future is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const rest = hours % 24;
    return rest === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${rest}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The time since an RFC 3339 timestamp, as `humanDuration`; `<unknown>` when there is none. */
export function since(timestamp: unknown, nowMs: number): string {
  const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(parsed) ? '<unknown>' : humanDuration(nowMs - parsed);
}

/** The object's age, as kubectl prints it. */
export function age(object: Json, nowMs: number): string {
  return since(record(object.metadata).creationTimestamp, nowMs);
}

/** The object's name. */
export function nameOf(object: Json): string {
  return text(record(object.metadata).name);
}

/** A label selector (`metav1.LabelSelector`) as kube prints it: `a=b,c in (d,e),!f`. */
export function labelSelectorText(selector: unknown): string {
  if (selector === undefined || selector === null) return '<none>';
  const value = record(selector);
  const parts: Array<[string, string]> = [];
  for (const [key, label] of Object.entries(record(value.matchLabels))) {
    parts.push([key, `${key}=${text(label)}`]);
  }
  for (const expression of list(value.matchExpressions)) {
    const { key, operator, values } = record(expression);
    const name = text(key);
    const sorted = list(values).map(text).sort();
    if (operator === 'In') parts.push([name, `${name} in (${sorted.join(',')})`]);
    else if (operator === 'NotIn') parts.push([name, `${name} notin (${sorted.join(',')})`]);
    else if (operator === 'Exists') parts.push([name, name]);
    else if (operator === 'DoesNotExist') parts.push([name, `!${name}`]);
  }
  // kube sorts a selector's requirements by key.
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return parts.map(([, part]) => part).join(',');
}

/** A plain label map as a selector (`app=a,tier=b`, sorted), `<none>` when empty. */
export function mapSelectorText(selector: unknown): string {
  const entries = Object.entries(record(selector)).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return '<none>';
  return entries.map(([key, value]) => `${key}=${text(value)}`).join(',');
}

/** A workload's pod template spec. */
export function templateSpec(object: Json): Json {
  return record(record(record(object.spec).template).spec);
}

/** The template's container names, comma-separated. */
export function containerNames(spec: Json): string {
  return list(spec.containers)
    .map((container) => text(record(container).name))
    .join(',');
}

/** The template's container images, comma-separated. */
export function containerImages(spec: Json): string {
  return list(spec.containers)
    .map((container) => text(record(container).image))
    .join(',');
}

/** The wide Containers column of workloads. */
export const containersColumn = column(
  'Containers',
  'string',
  'Names of each container in the template.',
  1,
);
/** The wide Images column of workloads. */
export const imagesColumn = column(
  'Images',
  'string',
  'Images referenced by each container in the template.',
  1,
);

/** Whether the object has status condition `type` at `True`. */
export function conditionTrue(object: Json, type: string): boolean {
  return list(record(object.status).conditions).some((condition) => {
    const value = record(condition);
    return value.type === type && value.status === 'True';
  });
}

/** A printer whose first column is Name, followed by `columns`. */
export function namedPrinter(
  columns: TableColumnDefinition[],
  cells: (object: Json, nowMs: number) => unknown[],
): TablePrinter {
  return {
    columns: [nameColumn, ...columns],
    cells: (object, nowMs) => [nameOf(object), ...cells(object, nowMs)],
  };
}

/** An IntOrString as printed, `N/A` when unset. */
export function intOrString(value: unknown): string {
  return value === undefined || value === null ? 'N/A' : String(value);
}

/** kube's columns for a kind without a printer: `Name` and `Created At` (RFC 3339 text). */
export const defaultPrinter: TablePrinter = {
  columns: [
    nameColumn,
    {
      name: 'Created At',
      type: 'date',
      format: '',
      description: 'CreationTimestamp is the server time when this object was created.',
      priority: 0,
    },
  ],
  cells: (object) => [nameOf(object), text(record(object.metadata).creationTimestamp)],
};

/** The Name column every printer starts with (CRD tables too). */
export const nameColumnDefinition: TableColumnDefinition = nameColumn;
