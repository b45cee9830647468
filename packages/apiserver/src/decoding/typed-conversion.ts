// Converting a built-in kind's unstructured form into its Go type as kube-apiserver does after a strategic
// merge patch (runtime.DefaultUnstructuredConverter: first mismatch wins, fields in declaration order), and
// the numeric fields structured-merge-diff refuses when it types an apply configuration.

import { isRecord } from '../apimachinery/objects.ts';
import type { FieldType, TypeDefinition } from '../types/type-definition.ts';
import {
  base64Error,
  type DefinitionLookup,
  goTypeName,
  int32Range,
  jsonFields,
  jsonKind,
  opaque,
  quantityError,
  timeError,
} from './typed-decoding.ts';

/** The unstructured converter's name for a JSON value's Go kind (ints are int64, as PreserveInts keeps them). */
function unstructuredKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (isRecord(value)) return 'map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/**
 * The error runtime.DefaultUnstructuredConverter.FromUnstructured reports converting `object` (a strategic
 * merge patch's result) into the Go type `definition` describes, or undefined when it converts.
 */
export function unstructuredConversionError(
  lookup: DefinitionLookup,
  definition: TypeDefinition,
  object: Record<string, unknown>,
): string | undefined {
  const goKind = (type: string): string => goTypeName(type as FieldType);
  const scalar = (type: string, value: unknown): string | undefined => {
    switch (type) {
      case 'rawExtension':
        return undefined;
      case 'quantity': {
        const text = typeof value === 'string' ? value.trim() : JSON.stringify(value);
        return quantityError(text);
      }
      case 'intOrString':
      case 'time':
      case 'microTime':
      case 'duration': {
        // Marshalled back to JSON and handed to the type's UnmarshalJSON (no field context).
        const into = type === 'intOrString' && typeof value !== 'string' ? 'int32' : 'string';
        if (into === 'string' && typeof value !== 'string') {
          return `json: cannot unmarshal ${jsonKind(value)} into Go value of type string`;
        }
        if (into === 'int32') {
          if (typeof value === 'number' && Number.isInteger(value) && value >= int32Range[0]) {
            return value <= int32Range[1]
              ? undefined
              : `json: cannot unmarshal number ${value} into Go value of type int32`;
          }
          return `json: cannot unmarshal ${typeof value === 'number' ? `number ${value}` : jsonKind(value)} into Go value of type int32`;
        }
        if (type === 'time' || type === 'microTime') {
          return value === '' ? undefined : timeError(value as string);
        }
        return undefined;
      }
      case 'bytes':
        if (typeof value === 'string') {
          const error = base64Error(value);
          return error === undefined ? undefined : `error decoding from json: ${error}`;
        }
        return Array.isArray(value)
          ? undefined
          : `cannot restore slice from ${unstructuredKind(value)}`;
      default: {
        const source = unstructuredKind(value);
        const target = goKind(type);
        if (source === 'string')
          return target === 'string' ? undefined : `unrecognized type: ${target}`;
        if (source === 'bool')
          return target === 'bool' ? undefined : `unrecognized type: ${target}`;
        if (source === 'int64') {
          if (target === 'string') return 'cannot convert int64 to string';
          return target === 'bool' ? 'unrecognized type: bool' : undefined;
        }
        if (source === 'float64') {
          if (target === 'float64') return undefined;
          if (target === 'int32' || target === 'int64') {
            return Number.isInteger(value) ? undefined : `cannot convert float64 to ${target}`;
          }
          return `unrecognized type: ${target}`;
        }
        return `unrecognized type: ${target}`;
      }
    }
  };
  const convert = (type: FieldType, repeated: boolean, value: unknown): string | undefined => {
    if (value === null || value === undefined) return undefined;
    if (repeated) {
      if (!Array.isArray(value)) return `cannot restore slice from ${unstructuredKind(value)}`;
      for (const item of value) {
        const error = convert(type, false, item);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    if (typeof type === 'string') return scalar(type, value);
    if ('map' in type) {
      if (!isRecord(value)) return `cannot restore map from ${unstructuredKind(value)}`;
      for (const item of Object.values(value)) {
        const error = convert(type.map, false, item);
        if (error !== undefined) return error;
      }
      return undefined;
    }
    if (opaque(type.message)) return undefined;
    const nested = lookup(type.message);
    if (nested === undefined) return undefined;
    if (!isRecord(value)) return `cannot restore struct from: ${unstructuredKind(value)}`;
    return structOf(nested, value);
  };
  const structOf = (
    definition: TypeDefinition,
    value: Record<string, unknown>,
  ): string | undefined => {
    for (const field of definition.fields) {
      if (field.inline === true && typeof field.type === 'object' && 'message' in field.type) {
        const inner = lookup(field.type.message);
        const error = inner === undefined ? undefined : structOf(inner, value);
        if (error !== undefined) return error;
        continue;
      }
      const error = convert(field.type, field.repeated === true, value[field.json]);
      if (error !== undefined) return error;
    }
    return undefined;
  };
  return structOf(definition, object);
}

/**
 * The paths (`spec.replicas`, `spec.template.spec.containers[0].ports[0].containerPort`) of an apply
 * configuration's numeric fields holding something else than a number: structured-merge-diff refuses them
 * when it types the configuration (`expected numeric (int or float)`).
 */
export function nonNumericPaths(
  lookup: DefinitionLookup,
  definition: TypeDefinition,
  object: Record<string, unknown>,
): string[] {
  const paths: string[] = [];
  const visit = (type: FieldType, repeated: boolean, value: unknown, path: string): void => {
    if (value === null || value === undefined) return;
    if (repeated) {
      if (Array.isArray(value)) {
        for (const [index, item] of value.entries()) visit(type, false, item, `${path}[${index}]`);
      }
      return;
    }
    if (typeof type === 'string') {
      const numeric = type === 'int32' || type === 'int64' || type === 'double';
      if (numeric && typeof value !== 'number') paths.push(path);
      return;
    }
    if ('map' in type) {
      if (!isRecord(value)) return;
      for (const [key, item] of Object.entries(value))
        visit(type.map, false, item, `${path}.${key}`);
      return;
    }
    if (opaque(type.message)) return;
    const nested = lookup(type.message);
    if (nested === undefined || !isRecord(value)) return;
    walk(nested, value, path);
  };
  const walk = (definition: TypeDefinition, value: Record<string, unknown>, path: string): void => {
    const fields = jsonFields(lookup, definition);
    for (const [key, item] of Object.entries(value)) {
      const field = fields.get(key);
      if (field === undefined) continue;
      visit(field.type, field.repeated === true, item, path === '' ? key : `${path}.${key}`);
    }
  };
  walk(definition, object, '');
  return paths;
}
