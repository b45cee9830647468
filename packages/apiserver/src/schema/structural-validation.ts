// Validation of a custom object by its CRD's schema, as kube-openapi's validate package runs it and
// apiextensions turns its results into field errors (apiextensions-apiserver/pkg/apiserver/validation).

import { isRecord } from '../apimachinery/objects.ts';
import {
  invalidValue,
  notSupported,
  requiredValue,
  type SchemaCause,
  tooLong,
  tooMany,
  typeInvalid,
} from './field-errors.ts';
import { matchesFormat } from './formats.ts';

type Json = Record<string, unknown>;

/** The JSON type name kube-openapi reports for a value (`integer` for a whole number). */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  return typeof value === 'string' ? 'string' : 'object';
}

/** Deep equality of JSON values (enum membership, uniqueness). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left)) {
    return (
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => jsonEqual(item, right[index]))
    );
  }
  if (isRecord(left) && isRecord(right)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => key in right && jsonEqual(left[key], right[key]))
    );
  }
  return false;
}

function typeMatches(value: unknown, type: string): boolean {
  const actual = jsonTypeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function named(path: string, child: string): string {
  return path === '' ? child : `${path}.${child}`;
}

/**
 * Field errors of `value` against `schema`, with `path` the dotted name kube-openapi uses both in the
 * messages (`spec.replicas in body ...`) and as the cause field. The root object's apiVersion, kind and
 * metadata are left to the server's own checks, except metadata.name and generateName, which the schema may
 * restrict.
 *
 * Gotchas: error order follows kube-openapi's validators (type, allOf/anyOf/oneOf/not, string, format,
 * number, array, enum, object), and properties in schema order (Go iterates a map, so kube's order varies).
 */
export function validateValue(value: unknown, schema: Json, path = ''): SchemaCause[] {
  const causes: SchemaCause[] = [];
  validateNode(value, schema, path, causes, path === '');
  return causes;
}

function validateNode(
  value: unknown,
  schema: Json,
  path: string,
  causes: SchemaCause[],
  root = false,
): void {
  if (value === null || value === undefined) {
    if (schema.nullable === true) return;
    validateType(null, schema, path, causes);
    validateEnum(null, schema, path, causes);
    return;
  }
  validateType(value, schema, path, causes);
  validateCombinators(value, schema, path, causes);
  if (typeof value === 'string') validateString(value, schema, path, causes);
  if (typeof value === 'number') validateNumber(value, schema, path, causes);
  if (Array.isArray(value)) validateArray(value, schema, path, causes);
  validateEnum(value, schema, path, causes);
  if (isRecord(value)) validateObject(value, schema, path, causes, root);
}

function validateType(value: unknown, schema: Json, path: string, causes: SchemaCause[]): void {
  const actual = jsonTypeOf(value);
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (actual === 'integer' || actual === 'string') return;
    causes.push(
      typeInvalid(path, actual, `${path} in body must be of type integer,string: "${actual}"`),
    );
    return;
  }
  if (typeof schema.type !== 'string' || schema.type === '') return;
  if (typeMatches(value, schema.type)) return;
  causes.push(
    typeInvalid(path, actual, `${path} in body must be of type ${schema.type}: "${actual}"`),
  );
}

function validateCombinators(
  value: unknown,
  schema: Json,
  path: string,
  causes: SchemaCause[],
): void {
  const alternatives = (key: string): Json[] =>
    Array.isArray(schema[key]) ? (schema[key] as unknown[]).filter(isRecord) : [];
  const results = (list: Json[]): SchemaCause[][] =>
    list.map((alternative) => validateValue(value, alternative, path));
  // kube keeps the errors of the failing alternative that got furthest; the fewest errors stands in.
  const best = (failed: SchemaCause[][]): SchemaCause[] =>
    failed.reduce((kept, next) => (next.length < kept.length ? next : kept));
  const anyOf = alternatives('anyOf');
  if (anyOf.length > 0) {
    const outcomes = results(anyOf);
    if (!outcomes.some((outcome) => outcome.length === 0)) {
      causes.push(invalidValue('<nil>', '', `"${path}" must validate at least one schema (anyOf)`));
      causes.push(...best(outcomes));
    }
  }
  const oneOf = alternatives('oneOf');
  if (oneOf.length > 0) {
    const outcomes = results(oneOf);
    const valid = outcomes.filter((outcome) => outcome.length === 0).length;
    if (valid === 0) {
      causes.push(
        invalidValue(
          '<nil>',
          '',
          `"${path}" must validate one and only one schema (oneOf). Found none valid`,
        ),
      );
      causes.push(...best(outcomes));
    } else if (valid > 1) {
      causes.push(
        invalidValue(
          '<nil>',
          '',
          `"${path}" must validate one and only one schema (oneOf). Found ${valid} valid alternatives`,
        ),
      );
    }
  }
  const allOf = alternatives('allOf');
  if (allOf.length > 0) {
    const failed = results(allOf).flat();
    if (failed.length > 0) {
      causes.push(...failed);
      causes.push(invalidValue('<nil>', '', `"${path}" must validate all the schemas (allOf)`));
    }
  }
  if (isRecord(schema.not) && validateValue(value, schema.not, path).length === 0) {
    causes.push(invalidValue('<nil>', '', `"${path}" must not validate the schema (not)`));
  }
}

function validateString(value: string, schema: Json, path: string, causes: SchemaCause[]): void {
  // JSON Schema lengths count characters (code points), as Go's utf8.RuneCountInString.
  const length = [...value].length;
  const { minLength, maxLength, pattern, format } = schema;
  if (typeof maxLength === 'number' && length > maxLength) causes.push(tooLong(path, maxLength));
  if (typeof minLength === 'number' && length < minLength) {
    causes.push(
      invalidValue(path, value, `${path} in body should be at least ${minLength} chars long`),
    );
  }
  if (typeof pattern === 'string') {
    const compiled = compilePattern(pattern);
    if (compiled !== undefined && !compiled.test(value)) {
      causes.push(invalidValue(path, value, `${path} in body should match '${pattern}'`));
    }
  }
  if (typeof format === 'string' && !matchesFormat(format, value)) {
    causes.push(invalidValue(path, value, `${path} in body must be of type ${format}: "${value}"`));
  }
}

const patterns = new Map<string, RegExp | undefined>();

/** A schema pattern as a RegExp (cached); undefined when it does not compile (CRD validation refuses it). */
export function compilePattern(pattern: string): RegExp | undefined {
  if (!patterns.has(pattern)) {
    let compiled: RegExp | undefined;
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      compiled = undefined;
    }
    patterns.set(pattern, compiled);
  }
  return patterns.get(pattern);
}

function validateNumber(value: number, schema: Json, path: string, causes: SchemaCause[]): void {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  const fail = (rule: string): void => {
    causes.push(invalidValue(path, value, `${path} in body should be ${rule}`));
  };
  if (typeof multipleOf === 'number' && multipleOf > 0) {
    const quotient = value / multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient))) {
      fail(`a multiple of ${multipleOf}`);
    }
  }
  if (typeof maximum === 'number') {
    if (exclusiveMaximum === true ? value >= maximum : value > maximum) {
      fail(`less than ${exclusiveMaximum === true ? '' : 'or equal to '}${maximum}`);
    }
  }
  if (typeof minimum === 'number') {
    if (exclusiveMinimum === true ? value <= minimum : value < minimum) {
      fail(`greater than ${exclusiveMinimum === true ? '' : 'or equal to '}${minimum}`);
    }
  }
}

function validateArray(value: unknown[], schema: Json, path: string, causes: SchemaCause[]): void {
  if (isRecord(schema.items)) {
    const items = schema.items;
    value.forEach((item, index) => {
      validateNode(item, items, `${path}[${index}]`, causes);
    });
  }
  const { minItems, maxItems } = schema;
  if (typeof minItems === 'number' && value.length < minItems) {
    causes.push(
      invalidValue(path, value.length, `${path} in body should have at least ${minItems} items`),
    );
  }
  if (typeof maxItems === 'number' && value.length > maxItems) {
    causes.push(tooMany(path, value.length, maxItems));
  }
  if (schema.uniqueItems === true) {
    const duplicate = value.some((item, index) =>
      value.slice(index + 1).some((other) => jsonEqual(item, other)),
    );
    if (duplicate) {
      causes.push(invalidValue(path, '', `${path} in body shouldn't contain duplicates`));
    }
  }
}

function validateEnum(value: unknown, schema: Json, path: string, causes: SchemaCause[]): void {
  if (!Array.isArray(schema.enum) || schema.enum.length === 0) return;
  if (schema.enum.some((item) => jsonEqual(item, value))) return;
  causes.push(notSupported(path, value, schema.enum));
}

function validateObject(
  value: Json,
  schema: Json,
  path: string,
  causes: SchemaCause[],
  root: boolean,
): void {
  const count = Object.keys(value).length;
  const { minProperties, maxProperties } = schema;
  // The count is the bad value (the bound before kube-openapi#297, 1.24), and the object's fields are
  // validated all the same (kube-openapi#412 stopped the short cut, 1.28).
  if (typeof minProperties === 'number' && count < minProperties) {
    causes.push(
      invalidValue(path, count, `${path} in body should have at least ${minProperties} properties`),
    );
  }
  if (typeof maxProperties === 'number' && count > maxProperties) {
    causes.push(tooMany(path, count, maxProperties));
  }
  const properties = isRecord(schema.properties) ? schema.properties : {};
  if (isRecord(schema.additionalProperties)) {
    for (const [key, child] of Object.entries(value)) {
      if (!(key in properties)) {
        validateNode(child, schema.additionalProperties, `${path}.${key}`, causes);
      }
    }
  }
  for (const [key, childSchema] of Object.entries(properties)) {
    if (root && (key === 'apiVersion' || key === 'kind')) continue;
    if (!isRecord(childSchema) || !(key in value)) continue;
    if (root && key === 'metadata') {
      validateMetadataNames(value[key], childSchema, named(path, key), causes);
      continue;
    }
    validateNode(value[key], childSchema, named(path, key), causes);
  }
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === 'string' && !(key in value)) causes.push(requiredValue(named(path, key)));
    }
  }
  if (schema['x-kubernetes-embedded-resource'] === true) {
    // An embedded object is a resource of its own: it names its apiVersion and kind.
    for (const key of ['apiVersion', 'kind']) {
      if (typeof value[key] !== 'string' || value[key] === '') {
        causes.push(requiredValue(named(path, key), 'must not be empty'));
      }
    }
  }
}

// The schema of the root metadata may only restrict name and generateName (kube validates the rest itself).
function validateMetadataNames(
  value: unknown,
  schema: Json,
  path: string,
  causes: SchemaCause[],
): void {
  if (!isRecord(value) || !isRecord(schema.properties)) return;
  for (const key of ['name', 'generateName']) {
    const childSchema = schema.properties[key];
    if (isRecord(childSchema) && key in value) {
      validateNode(value[key], childSchema, named(path, key), causes);
    }
  }
}
