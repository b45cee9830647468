// Decoding a built-in kind's JSON as kube-apiserver's Go types decode it, driven by the type table
// (`types/`): a field whose JSON type its Go type cannot take is refused in Go's words. Two decoders are
// modelled. Bodies and merge/JSON patch results go through sigs.k8s.io/json (the encoding/json fork
// kube-apiserver decodes with since 1.23): a type mismatch is remembered and decoding goes on (the first one
// is reported), an error from a type's own UnmarshalJSON (Quantity, IntOrString, Time, Duration) stops it
// and wins. Strategic merge patch results go through the unstructured converter, which stops at the first
// mismatch, field by field in declaration order.

import { isRecord } from '../apimachinery/objects.ts';
import type { FieldDefinition, FieldType, TypeDefinition } from '../types/type-definition.ts';

/** Reads a definition by its OpenAPI name (the type table's `typeDefinitions.get`). */
export type DefinitionLookup = (name: string) => TypeDefinition | undefined;

/**
 * The number literals of a JSON text by field path (`spec.replicas`, `spec.ports[0].port`), for the
 * numbers JavaScript cannot keep as written (`3.0`, `1e12`, integers past 2^53); undefined when the text
 * has none, as most bodies.
 */
export function numberLiterals(text: string): ReadonlyMap<string, string> | undefined {
  // A literal JavaScript may not keep as written follows a colon, comma or bracket: `3.0`, `1e12`, 16+ digits.
  if (!/[:,[]\s*-?\d+([.eE]|\d{15})/.test(text)) return undefined;
  const literals = new Map<string, string>();
  const stack: Array<{ array: boolean; path: string; index: number }> = [];
  let pending = '';
  let i = 0;
  const here = (): string => {
    const top = stack[stack.length - 1];
    if (top?.array === true) return `${top.path}[${top.index++}]`;
    return pending;
  };
  while (i < text.length) {
    const char = text[i]!;
    if (char === '{' || char === '[') {
      stack.push({ array: char === '[', path: here(), index: 0 });
      i++;
    } else if (char === '}' || char === ']') {
      stack.pop();
      i++;
    } else if (char === '"') {
      const start = i;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      let k = i;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      const top = stack[stack.length - 1];
      if (top !== undefined && !top.array && text[k] === ':') {
        const key = JSON.parse(text.slice(start, i)) as string;
        pending = top.path === '' ? key : `${top.path}.${key}`;
        i = k + 1;
      } else here();
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      const start = i;
      while (i < text.length && /[-+.eE0-9]/.test(text[i]!)) i++;
      literals.set(here(), text.slice(start, i));
    } else if (char === 't' || char === 'f' || char === 'n') {
      here();
      i += char === 'f' ? 5 : 4;
    } else i++;
  }
  return literals;
}

/** Where the walk is: the Go struct holding the field and the JSON path (`spec.template.spec`). */
interface Place {
  struct: string;
  fields: string[];
  /** The path with array indices, to find a number's literal. */
  literalPath: string;
}

class Stop {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

/** The Go type name of a table type, as Go's `reflect.Type.String()` prints it. */
export function goTypeName(type: FieldType, repeated = false): string {
  const base = (() => {
    if (typeof type === 'string') {
      switch (type) {
        case 'double':
          return 'float64';
        case 'bytes':
          return '[]uint8';
        case 'quantity':
          return 'resource.Quantity';
        case 'intOrString':
          return 'intstr.IntOrString';
        case 'time':
          return 'v1.Time';
        case 'microTime':
          return 'v1.MicroTime';
        case 'duration':
          return 'v1.Duration';
        case 'rawExtension':
          return 'runtime.RawExtension';
        default:
          return type;
      }
    }
    if ('map' in type) {
      return type.map === 'quantity' ? 'v1.ResourceList' : `map[string]${goTypeName(type.map)}`;
    }
    return shortName(type.message);
  })();
  return repeated ? `[]${base}` : base;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`. */
function shortName(definition: string): string {
  const parts = definition.split('.');
  return parts.slice(-2).join('.');
}

/** Messages whose JSON form is any value (apiextensions' JSON and its unions): left alone. */
export function opaque(name: string): boolean {
  return /\.(JSON|JSONSchemaPropsOrArray|JSONSchemaPropsOrBool|JSONSchemaPropsOrStringArray)$/.test(
    name,
  );
}

/** JSON's name for a value's kind in encoding/json's messages. */
export function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const quantitySuffixes = new Set([
  '',
  'Ki',
  'Mi',
  'Gi',
  'Ti',
  'Pi',
  'Ei',
  'n',
  'u',
  'm',
  'k',
  'M',
  'G',
  'T',
  'P',
  'E',
]);

/** resource.ParseQuantity's error for `text`, undefined when it parses. */
export function quantityError(text: string): string | undefined {
  const match = quantityPattern.exec(text);
  if (text === '' || match === null) {
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  }
  const numeric = match[1]!.replace(/^[+-]/, '');
  if (!/^(\d+\.?\d*|\.\d+)$/.test(numeric)) return 'unable to parse numeric part of quantity';
  const suffix = match[2]!;
  if (!quantitySuffixes.has(suffix) && !/^[eE][-+]?\d+$/.test(suffix)) {
    return "unable to parse quantity's suffix";
  }
  return undefined;
}

const rfc3339Layout = '2006-01-02T15:04:05Z07:00';

/** time.Parse(time.RFC3339, text)'s error, undefined when it parses (Go's wording for the element it stopped at). */
export function timeError(text: string): string | undefined {
  const elements: Array<[string, RegExp]> = [
    ['2006', /^\d{4}/],
    ['-', /^-/],
    ['01', /^\d{2}/],
    ['-', /^-/],
    ['02', /^\d{2}/],
    ['T', /^T/],
    ['15', /^\d{2}/],
    [':', /^:/],
    ['04', /^\d{2}/],
    [':', /^:/],
    ['05', /^\d{2}(\.\d+)?/],
    ['Z07:00', /^(Z|[+-]\d{2}:\d{2})/],
  ];
  let rest = text;
  for (const [element, pattern] of elements) {
    const match = pattern.exec(rest);
    if (match === null) {
      return `parsing time ${JSON.stringify(text)} as "${rfc3339Layout}": cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(element)}`;
    }
    rest = rest.slice(match[0].length);
  }
  if (rest !== '') {
    return `parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(rest)}`;
  }
  return undefined;
}

/** Go's base64.StdEncoding error for `text`, undefined when it decodes. */
export function base64Error(text: string): string | undefined {
  const body = text.replace(/=+$/, '');
  const bad = body.search(/[^A-Za-z0-9+/]/);
  if (bad >= 0) return `illegal base64 data at input byte ${bad}`;
  if (text.length % 4 !== 0 || text.length - body.length > 2) {
    return `illegal base64 data at input byte ${text.length - (text.length % 4 || 4)}`;
  }
  return undefined;
}

export const int32Range = [-(2 ** 31), 2 ** 31 - 1] as const;
const int64Range = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/** Whether a number literal is an integer Go's strconv.ParseInt takes into the given width. */
function fitsInteger(literal: string, type: 'int32' | 'int64'): boolean {
  if (!/^-?\d+$/.test(literal)) return false;
  const value = BigInt(literal);
  if (type === 'int64') return value >= int64Range[0] && value <= int64Range[1];
  return value >= BigInt(int32Range[0]) && value <= BigInt(int32Range[1]);
}

/** The literal text of a number: as written when the body had it, else as JavaScript prints it. */
function literalOf(value: number, place: Place, literals?: ReadonlyMap<string, string>): string {
  return literals?.get(place.literalPath) ?? String(value);
}

/**
 * The error kube-apiserver's JSON decoder (sigs.k8s.io/json into the Go types) reports for `object`, of
 * the type `definition` describes, or undefined when it decodes. `literals` are the body's number literals
 * ({@link numberLiterals}).
 */
export function jsonDecodingError(
  lookup: DefinitionLookup,
  definition: TypeDefinition,
  object: Record<string, unknown>,
  literals?: ReadonlyMap<string, string>,
): string | undefined {
  let saved: string | undefined;
  const typeError = (value: string, type: string, place: Place): string =>
    place.fields.length === 0
      ? `json: cannot unmarshal ${value} into Go value of type ${type}`
      : `json: cannot unmarshal ${value} into Go struct field ${place.struct}.${place.fields.join('.')} of type ${type}`;
  const save = (message: string): void => {
    saved ??= message;
  };
  // A type's UnmarshalJSON calling encoding/json on its own: its UnmarshalTypeError gets the field's context.
  const unmarshalInto = (value: unknown, goType: 'string' | 'int32', place: Place): void => {
    if (value === null) return;
    if (goType === 'string' && typeof value === 'string') return;
    if (goType === 'int32' && typeof value === 'number') {
      const literal = literalOf(value, place, literals);
      if (fitsInteger(literal, 'int32')) return;
      throw new Stop(typeError(`number ${literal}`, goType, place));
    }
    throw new Stop(typeError(jsonKind(value), goType, place));
  };

  const scalar = (type: string, value: unknown, place: Place): void => {
    if (value === null) return;
    switch (type) {
      case 'rawExtension':
        return;
      case 'quantity': {
        const text =
          typeof value === 'string'
            ? value.trim()
            : typeof value === 'number'
              ? literalOf(value, place, literals)
              : JSON.stringify(value);
        const error = quantityError(text);
        if (error !== undefined) throw new Stop(error);
        return;
      }
      case 'intOrString':
        unmarshalInto(value, typeof value === 'string' ? 'string' : 'int32', place);
        return;
      case 'time':
      case 'microTime':
      case 'duration': {
        unmarshalInto(value, 'string', place);
        if (value === '') return;
        const error =
          type === 'duration'
            ? /^[-+]?(\d*\.?\d+(ns|us|µs|ms|s|m|h))+$|^[-+]?0$/.test(value as string)
              ? undefined
              : `time: invalid duration ${JSON.stringify(value)}`
            : timeError(value as string);
        if (error !== undefined) throw new Stop(error);
        return;
      }
      case 'string':
        if (typeof value !== 'string') save(typeError(jsonKind(value), 'string', place));
        return;
      case 'bool':
        if (typeof value !== 'boolean') save(typeError(jsonKind(value), 'bool', place));
        return;
      case 'bytes':
        if (typeof value === 'string') {
          const error = base64Error(value);
          if (error !== undefined) save(error);
        } else if (!Array.isArray(value)) save(typeError(jsonKind(value), '[]uint8', place));
        return;
      case 'int32':
      case 'int64':
      case 'double': {
        const goType = goTypeName(type);
        if (typeof value !== 'number') {
          save(typeError(jsonKind(value), goType, place));
          return;
        }
        const literal = literalOf(value, place, literals);
        const fits = type === 'double' ? Number.isFinite(value) : fitsInteger(literal, type);
        if (!fits) save(typeError(`number ${literal}`, goType, place));
        return;
      }
      default:
        return;
    }
  };

  const decodeValue = (type: FieldType, repeated: boolean, value: unknown, place: Place): void => {
    if (value === null) return;
    if (repeated) {
      if (!Array.isArray(value)) {
        save(typeError(jsonKind(value), goTypeName(type, true), place));
        return;
      }
      for (const [index, item] of value.entries()) {
        decodeValue(type, false, item, { ...place, literalPath: `${place.literalPath}[${index}]` });
      }
      return;
    }
    if (typeof type === 'string') {
      scalar(type, value, place);
      return;
    }
    if ('map' in type) {
      if (!isRecord(value)) {
        save(typeError(jsonKind(value), goTypeName(type), place));
        return;
      }
      for (const [key, item] of Object.entries(value)) {
        decodeValue(type.map, false, item, {
          ...place,
          literalPath: `${place.literalPath}.${key}`,
        });
      }
      return;
    }
    if (opaque(type.message)) return;
    const nested = lookup(type.message);
    if (nested === undefined) return;
    if (!isRecord(value)) {
      save(typeError(jsonKind(value), goTypeName(type), place));
      return;
    }
    struct(nested, value, place);
  };

  const struct = (definition: TypeDefinition, value: Record<string, unknown>, at: Place): void => {
    const fields = jsonFields(lookup, definition);
    const goName = definition.name.split('.').pop()!;
    for (const [key, item] of Object.entries(value)) {
      const field = fields.get(key);
      if (field === undefined) continue;
      const literalPath = at.literalPath === '' ? key : `${at.literalPath}.${key}`;
      decodeValue(field.type, field.repeated === true, item, {
        struct: goName,
        fields: [...at.fields, key],
        literalPath,
      });
    }
  };

  try {
    struct(definition, object, { struct: '', fields: [], literalPath: '' });
  } catch (error) {
    if (error instanceof Stop) return error.message;
    throw error;
  }
  return saved;
}

// A field promoted from an inline struct is reported under the outer struct, as Go embeds it.
type JsonField = FieldDefinition;

const fieldCache = new WeakMap<TypeDefinition, Map<string, JsonField>>();

/** A definition's fields by JSON name, inline structs' fields promoted into it (as Go embeds them). */
export function jsonFields(
  lookup: DefinitionLookup,
  definition: TypeDefinition,
): Map<string, JsonField> {
  let fields = fieldCache.get(definition);
  if (fields !== undefined) return fields;
  fields = new Map();
  for (const field of definition.fields) {
    if (field.inline === true && typeof field.type === 'object' && 'message' in field.type) {
      const inner = lookup(field.type.message);
      if (inner === undefined) continue;
      for (const [name, promoted] of jsonFields(lookup, inner)) {
        if (!fields.has(name)) fields.set(name, promoted);
      }
      continue;
    }
    fields.set(field.json, field);
  }
  fieldCache.set(definition, fields);
  return fields;
}
