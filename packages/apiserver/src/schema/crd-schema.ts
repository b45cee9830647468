// What apiextensions refuses in a CRD's openAPIV3Schema: the common structural-schema violations, patterns
// that do not compile, uniqueItems, defaults that are pruned or invalid, CEL rules that do not compile
// (apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go).

import { isRecord } from '../apimachinery/objects.ts';
import { compileRule, rulesOf } from './cel/rules.ts';
import {
  forbidden,
  GoText,
  invalidValue,
  notSupported,
  requiredValue,
  type SchemaCause,
} from './field-errors.ts';
import { pruneUnknownFields } from './pruning.ts';
import { validateValue } from './structural-validation.ts';

type Json = Record<string, unknown>;

/**
 * Field errors of one openAPIV3Schema; `base` is its field path (`spec.validation.openAPIV3Schema` when all
 * versions share one schema, as kube reports it, else `spec.versions[i].schema.openAPIV3Schema`).
 */
export function validateCrdSchema(schema: Json, base: string): SchemaCause[] {
  const causes: SchemaCause[] = [];
  walk(schema, base, causes, false);
  const metadata = isRecord(schema.properties) ? schema.properties.metadata : undefined;
  if (isRecord(metadata)) checkRootMetadata(metadata, `${base}.properties[metadata]`, causes);
  return causes;
}

// kube serves metadata itself: the schema may only restrict name and generateName, without defaults.
function checkRootMetadata(metadata: Json, path: string, causes: SchemaCause[]): void {
  const properties = isRecord(metadata.properties) ? metadata.properties : {};
  for (const [key, child] of Object.entries(properties)) {
    if (isRecord(child) && child.default !== undefined) {
      causes.push(
        forbidden(`${path}.properties[${key}].default`, 'must not be set in top-level metadata'),
      );
    }
  }
  const allowed = new Set(['type', 'properties']);
  const extra =
    Object.keys(metadata).some((key) => !allowed.has(key)) ||
    Object.keys(properties).some((key) => key !== 'name' && key !== 'generateName');
  if (extra) {
    causes.push(
      forbidden(
        path,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  }
}

// The structural-schema rules kube words most often (apiextensions' structural validation).
function checkStructure(schema: Json, path: string, causes: SchemaCause[], field: boolean): void {
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (field && (schema.type === undefined || schema.type === '') && !intOrString && !preserve) {
    causes.push(requiredValue(`${path}.type`, 'must not be empty for specified object fields'));
  }
  if (isRecord(schema.properties) && isRecord(schema.additionalProperties)) {
    causes.push(
      forbidden(
        `${path}.additionalProperties`,
        'additionalProperties and properties are mutual exclusive',
      ),
    );
  }
  if (schema.type === 'array' && !isRecord(schema.items)) {
    causes.push(requiredValue(`${path}.items`, 'must be specified'));
  }
  if (
    schema['x-kubernetes-embedded-resource'] === true &&
    !preserve &&
    (!isRecord(schema.properties) || Object.keys(schema.properties).length === 0)
  ) {
    causes.push(
      requiredValue(
        `${path}.properties`,
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
  const listType = schema['x-kubernetes-list-type'];
  if (listType === undefined) return;
  if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    causes.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  const keys = schema['x-kubernetes-list-map-keys'];
  if (listType === 'map' && (!Array.isArray(keys) || keys.length === 0)) {
    causes.push(
      requiredValue(
        `${path}.x-kubernetes-list-map-keys`,
        'must not be empty if x-kubernetes-list-type is map',
      ),
    );
  }
  const items = isRecord(schema.items) ? schema.items : undefined;
  if (
    listType === 'set' &&
    items?.type === 'object' &&
    items['x-kubernetes-map-type'] !== 'atomic'
  ) {
    causes.push(
      invalidValue(
        `${path}.items.x-kubernetes-map-type`,
        items['x-kubernetes-map-type'] ?? 'null',
        'must be atomic as item of a list with x-kubernetes-list-type=set',
      ),
    );
  }
}

function walk(
  schema: Json,
  path: string,
  causes: SchemaCause[],
  field: boolean,
  objectMeta = false,
): void {
  checkStructure(schema, path, causes, field);
  if (typeof schema.pattern === 'string') {
    try {
      new RegExp(schema.pattern, 'u');
    } catch (error) {
      causes.push(
        invalidValue(
          `${path}.pattern`,
          schema.pattern,
          `must be a valid regular expression, but isn't: ${(error as Error).message}`,
        ),
      );
    }
  }
  if (schema.uniqueItems === true) {
    causes.push(
      forbidden(
        `${path}.uniqueItems`,
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  rulesOf(schema).forEach((rule, index) => {
    const compiled = compileRule(rule.rule as string);
    if (compiled instanceof Error) {
      causes.push(
        invalidValue(
          `${path}.x-kubernetes-validations[${index}].rule`,
          ruleValue(rule),
          `compilation failed: ERROR: ${compiled.message}`,
        ),
      );
    }
  });
  if (schema.default !== undefined) validateDefault(schema, `${path}.default`, causes, objectMeta);
  if (isRecord(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (!isRecord(child)) continue;
      // An embedded resource's metadata is an ObjectMeta: its fields survive pruning.
      const meta = key === 'metadata' && schema['x-kubernetes-embedded-resource'] === true;
      walk(child, `${path}.properties[${key}]`, causes, true, meta);
    }
  }
  if (isRecord(schema.items)) walk(schema.items, `${path}.items`, causes, true);
  if (isRecord(schema.additionalProperties)) {
    walk(schema.additionalProperties, `${path}.additionalProperties`, causes, true);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) {
      list.forEach((child, index) => {
        if (isRecord(child)) walk(child, `${path}.${key}[${index}]`, causes, false);
      });
    }
  }
  if (isRecord(schema.not)) walk(schema.not, `${path}.not`, causes, false);
}

// kube shows the whole rule struct as the bad value (Go's %#v of apiextensions.ValidationRule).
function ruleValue(rule: Json): GoText {
  const text = (key: string): string =>
    JSON.stringify(typeof rule[key] === 'string' ? rule[key] : '');
  const reason =
    typeof rule.reason === 'string'
      ? `(*apiextensions.FieldValueErrorReason)(${JSON.stringify(rule.reason)})`
      : '(*apiextensions.FieldValueErrorReason)(nil)';
  const optional =
    typeof rule.optionalOldSelf === 'boolean' ? `(*bool)(${rule.optionalOldSelf})` : '(*bool)(nil)';
  return new GoText(
    `apiextensions.ValidationRule{Rule:${text('rule')}, Message:${text('message')}, MessageExpression:${text('messageExpression')}, Reason:${reason}, FieldPath:${text('fieldPath')}, OptionalOldSelf:${optional}}`,
  );
}

function validateDefault(
  schema: Json,
  path: string,
  causes: SchemaCause[],
  objectMeta: boolean,
): void {
  const value = schema.default;
  if (isRecord(value) && !objectMeta) {
    const pruned = structuredClone(value);
    // The default of an object must survive pruning unchanged (metadata aside, kube checks it too).
    pruneUnknownFields(pruned, { ...schema, properties: schema.properties ?? {} });
    if (JSON.stringify(pruned) !== JSON.stringify(value)) {
      causes.push(invalidValue(path, value, 'must not have unknown fields'));
    }
  }
  for (const cause of validateValue(value, schema, '')) {
    const relative = cause.field === '' ? '' : cause.field.startsWith('<') ? '' : `.${cause.field}`;
    causes.push({ ...cause, field: `${path}${relative}` });
  }
}
