// Field errors as k8s.io/apimachinery's field package words them (`Invalid value: 11: ...`), the shape every
// custom-resource validation failure takes in a 422's causes.

/** One cause of a 422 Invalid: reason (kube's CauseType), message without the field, and the field path. */
export interface SchemaCause {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueTypeInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden';
  message: string;
  field: string;
}

/**
 * A JSON value rendered as Go prints an `interface{}` decoded from JSON with `%#v` (maps with sorted keys,
 * `[]interface {}{...}` for lists), which is what kube shows for a map or list in `Invalid value: ...`.
 */
export function goSyntax(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  const entries = Object.keys(value as object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${goSyntax((value as Record<string, unknown>)[key])}`);
  return `map[string]interface {}{${entries.join(', ')}}`;
}

/** A bad value already rendered as Go prints it (a Go struct kube shows with `%#v`). */
export class GoText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** The bad value part of a field error: quoted strings, plain numbers and booleans, `null`, Go syntax else. */
export function badValue(value: unknown): string {
  if (value instanceof GoText) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goSyntax(value);
}

/**
 * apimachinery's `field.OmitValueType{}`: a bad value left out of the message (`Invalid value: detail`), as
 * CEL rule failures on objects and lists give it since kubernetes#132798 and #133832 (1.35).
 */
export const omitValue: unique symbol = Symbol('omitValue');

/** `field.Invalid(path, value, detail)`. */
export function invalidValue(field: string, value: unknown, detail: string): SchemaCause {
  return {
    type: 'FieldValueInvalid',
    message:
      value === omitValue
        ? `Invalid value: ${detail}`
        : `Invalid value: ${badValue(value)}: ${detail}`,
    field,
  };
}

/** `field.TypeInvalid(path, value, detail)`. */
export function typeInvalid(field: string, value: unknown, detail: string): SchemaCause {
  return {
    type: 'FieldValueTypeInvalid',
    message: `Invalid value: ${badValue(value)}: ${detail}`,
    field,
  };
}

/** `field.Required(path, detail)`. */
export function requiredValue(field: string, detail = ''): SchemaCause {
  return {
    type: 'FieldValueRequired',
    message: detail === '' ? 'Required value' : `Required value: ${detail}`,
    field,
  };
}

/** `field.Forbidden(path, detail)`. */
export function forbidden(field: string, detail: string): SchemaCause {
  return { type: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** `field.Duplicate(path, value)`. */
export function duplicateValue(field: string, value: unknown): SchemaCause {
  const message = value === omitValue ? 'Duplicate value' : `Duplicate value: ${badValue(value)}`;
  return { type: 'FieldValueDuplicate', message, field };
}

/** `field.NotSupported(path, value, values)`: non-string values are listed as JSON. */
export function notSupported(field: string, value: unknown, values: unknown[]): SchemaCause {
  const listed = values
    .map((item) => JSON.stringify(typeof item === 'string' ? item : JSON.stringify(item)))
    .join(', ');
  return {
    type: 'FieldValueNotSupported',
    message: `Unsupported value: ${badValue(value)}${listed === '' ? '' : `: supported values: ${listed}`}`,
    field,
  };
}

/**
 * `field.TooLong(path, value, max)`: what apiextensions reports for a string over its schema's maxLength.
 * The wording is apimachinery's since kubernetes#128553 (1.32); the count is characters all the same.
 */
export function tooLong(field: string, maxLength: number): SchemaCause {
  return {
    type: 'FieldValueTooLong',
    message: `Too long: may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`,
    field,
  };
}

/** `field.TooMany(path, actual, max)`: a list or an object over its maxItems or maxProperties. */
export function tooMany(field: string, actual: number, max: number): SchemaCause {
  return {
    type: 'FieldValueTooMany',
    message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
    field,
  };
}
