// Serving CustomResourceDefinitions: validation of the CRD, the resources it serves, its status
// conditions, and pruning/validation of custom objects by the structural schema (apiextensions-apiserver).
import type { ResourceInfo } from './resources.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A validation failure cause in validation.ts's shape. */
export interface CrdCause {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueTypeInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong';
  message: string;
  field: string;
}

/** Causes that make a CRD invalid (kube-apiserver's apiextensions validation, the observable subset). */
export function validateCrd(crd: Json): CrdCause[] {
  const causes: CrdCause[] = [];
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = asString(spec.group);
  const plural = asString(names.plural);
  const kind = asString(names.kind);
  if (group === undefined) {
    causes.push({ type: 'FieldValueRequired', message: 'Required value', field: 'spec.group' });
  }
  if (plural === undefined) {
    causes.push({
      type: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.names.plural',
    });
  }
  if (kind === undefined) {
    causes.push({
      type: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.names.kind',
    });
  }
  const name = asString(isRecord(crd.metadata) ? crd.metadata.name : undefined) ?? '';
  if (group !== undefined && plural !== undefined && name !== `${plural}.${group}`) {
    causes.push({
      type: 'FieldValueInvalid',
      message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
      field: 'metadata.name',
    });
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({
      type: 'FieldValueNotSupported',
      message: `Unsupported value: "${String(spec.scope ?? '')}": supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  if (versions.length === 0) {
    causes.push({
      type: 'FieldValueRequired',
      message: 'Required value: must have exactly one version marked as storage version',
      field: 'spec.versions',
    });
  } else {
    const storage = versions.filter((version) => version.storage === true).length;
    if (storage !== 1) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(versions.map((version) => ({ name: version.name })))}: must have exactly one version marked as storage version`,
        field: 'spec.versions',
      });
    }
    versions.forEach((version, index) => {
      if (asString(version.name) === undefined) {
        causes.push({
          type: 'FieldValueRequired',
          message: 'Required value',
          field: `spec.versions[${index}].name`,
        });
      }
      const schema = isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
      if (!isRecord(schema)) {
        causes.push({
          type: 'FieldValueRequired',
          message: 'Required value: schemas are required',
          field: `spec.versions[${index}].schema.openAPIV3Schema`,
        });
      }
    });
  }
  return causes;
}

/** The resources a (valid) CRD serves, one per served version, plus the version preference order. */
export function crdResources(crd: Json): { infos: ResourceInfo[]; versionOrder: string[] } {
  const spec = crd.spec as Json;
  const names = spec.names as Json;
  const group = spec.group as string;
  const kind = names.kind as string;
  const versions = (spec.versions as unknown[]).filter(isRecord);
  const storageVersion = versions.find((version) => version.storage === true)?.name as string;
  const infos: ResourceInfo[] = [];
  for (const version of versions) {
    if (version.served !== true) continue;
    const subresources = isRecord(version.subresources) ? version.subresources : {};
    const served: string[] = [];
    if (isRecord(subresources.status)) served.push('status');
    const scale = isRecord(subresources.scale) ? subresources.scale : undefined;
    if (scale !== undefined) served.push('scale');
    const selectable = Array.isArray(version.selectableFields)
      ? version.selectableFields
          .filter(isRecord)
          .map((field) => String(field.jsonPath ?? '').replace(/^\./, ''))
      : [];
    const info: ResourceInfo = {
      group,
      version: version.name as string,
      resource: names.plural as string,
      kind,
      listKind: asString(names.listKind) ?? `${kind}List`,
      singularName: asString(names.singular) ?? kind.toLowerCase(),
      namespaced: spec.scope === 'Namespaced',
      shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
      categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      subresources: served,
      fieldSelectors: selectable,
      nameRule: 'subdomain',
      generation: true,
      builtin: false,
      storageVersion,
    };
    if (scale !== undefined) {
      info.scale = {
        specReplicasPath: String(scale.specReplicasPath ?? '.spec.replicas'),
        statusReplicasPath: String(scale.statusReplicasPath ?? '.status.replicas'),
      };
      const selectorPath = asString(scale.labelSelectorPath);
      if (selectorPath !== undefined) info.scale.labelSelectorPath = selectorPath;
    }
    infos.push(info);
  }
  return { infos, versionOrder: versionPriorityOrder(infos.map((info) => info.version)) };
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, then others alphabetically. */
export function versionPriorityOrder(versions: string[]): string[] {
  const parse = (version: string): [number, number, number, string] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
    if (match === null) return [3, 0, 0, version];
    const stage = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
    return [stage, -Number(match[1]), -Number(match[3] ?? 0), version];
  };
  return [...versions].sort((a, b) => {
    const left = parse(a);
    const right = parse(b);
    for (let index = 0; index < 3; index++) {
      const difference = (left[index] as number) - (right[index] as number);
      if (difference !== 0) return difference;
    }
    return left[3] < right[3] ? -1 : left[3] > right[3] ? 1 : 0;
  });
}

/** The status kube-apiserver's CRD controllers write shortly after a CRD is created. */
export function establishedStatus(crd: Json, now: string): Json {
  const spec = crd.spec as Json;
  const names = spec.names as Json;
  const versions = (spec.versions as unknown[]).filter(isRecord);
  const storage = versions.find((version) => version.storage === true)?.name as string;
  const previous = isRecord(crd.status) ? crd.status : {};
  const storedVersions = Array.isArray(previous.storedVersions)
    ? [...new Set([...previous.storedVersions.map(String), storage])]
    : [storage];
  const acceptedNames: Json = {
    plural: names.plural,
    singular: asString(names.singular) ?? String(names.kind).toLowerCase(),
    kind: names.kind,
    listKind: asString(names.listKind) ?? `${String(names.kind)}List`,
  };
  if (Array.isArray(names.shortNames)) acceptedNames.shortNames = names.shortNames;
  if (Array.isArray(names.categories)) acceptedNames.categories = names.categories;
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: now,
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: now,
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames,
    storedVersions,
  };
}

/** The openAPIV3Schema of one version of a CRD. */
export function schemaOf(crd: Json, version: string): Json | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const found = versions.find((candidate) => candidate.name === version);
  const schema = isRecord(found?.schema) ? found.schema.openAPIV3Schema : undefined;
  return isRecord(schema) ? schema : undefined;
}

/** Drop fields the structural schema does not know (apiextensions pruning), in place. */
export function pruneObject(object: Json, schema: Json): void {
  pruneProperties(object, schema, true);
}

function pruneProperties(value: Json, schema: Json, root: boolean): void {
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const additional = isRecord(schema.additionalProperties)
    ? schema.additionalProperties
    : undefined;
  for (const key of Object.keys(value)) {
    if ((root || embedded) && (key === 'apiVersion' || key === 'kind' || key === 'metadata'))
      continue;
    const child = value[key];
    const childSchema = isRecord(properties?.[key]) ? (properties[key] as Json) : additional;
    if (childSchema === undefined) {
      if (!preserve) delete value[key];
      continue;
    }
    pruneValue(child, childSchema);
  }
}

function pruneValue(value: unknown, schema: Json): void {
  if (isRecord(value)) pruneProperties(value, schema, false);
  else if (Array.isArray(value) && isRecord(schema.items)) {
    for (const item of value) pruneValue(item, schema.items);
  }
}

/**
 * Type/required/enum, numeric bound, string length and pattern checks of a custom object against its schema
 * (the common 422 cases), with kube-openapi's messages.
 */
export function validateAgainstSchema(object: Json, schema: Json): CrdCause[] {
  const causes: CrdCause[] = [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, childSchema] of Object.entries(properties)) {
    if (key === 'metadata' || key === 'apiVersion' || key === 'kind') continue;
    if (isRecord(childSchema) && key in object) {
      checkValue(object[key], childSchema, key, causes);
    }
  }
  checkRequired(object, schema, '', causes);
  return causes;
}

function typeMatches(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

function checkRequired(value: Json, schema: Json, path: string, causes: CrdCause[]): void {
  if (!Array.isArray(schema.required)) return;
  for (const key of schema.required) {
    if (typeof key === 'string' && !(key in value)) {
      causes.push({
        type: 'FieldValueRequired',
        message: 'Required value',
        field: path === '' ? key : `${path}.${key}`,
      });
    }
  }
}

function checkValue(value: unknown, schema: Json, path: string, causes: CrdCause[]): void {
  if (value === null && schema.nullable === true) return;
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(value)}: ${path} in body must be of type integer or string`,
        field: path,
      });
    }
    return;
  }
  if (schema.type !== undefined && !typeMatches(value, schema.type)) {
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    causes.push({
      type: 'FieldValueTypeInvalid',
      message: `Invalid value: "${actual}": ${path} in body must be of type ${String(schema.type)}: "${actual}"`,
      field: path,
    });
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((item) => item === value)) {
    causes.push({
      type: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((item) => JSON.stringify(item)).join(', ')}`,
      field: path,
    });
    return;
  }
  if (typeof value === 'number') checkNumber(value, schema, path, causes);
  if (typeof value === 'string') checkString(value, schema, path, causes);
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    for (const [key, childSchema] of Object.entries(properties)) {
      if (isRecord(childSchema) && key in value) {
        checkValue(value[key], childSchema, `${path}.${key}`, causes);
      }
    }
    if (isRecord(schema.additionalProperties)) {
      for (const [key, child] of Object.entries(value)) {
        if (!(key in properties)) {
          checkValue(child, schema.additionalProperties, `${path}.${key}`, causes);
        }
      }
    }
    checkRequired(value, schema, path, causes);
  } else if (Array.isArray(value) && isRecord(schema.items)) {
    value.forEach((item, index) => {
      checkValue(item, schema.items as Json, `${path}[${index}]`, causes);
    });
  }
}

// kube-openapi's validate package words these; apiextensions reports them as FieldValueInvalid, except maxLength,
// which it turns into a FieldValueTooLong.
function checkNumber(value: number, schema: Json, path: string, causes: CrdCause[]): void {
  const fail = (rule: string): void => {
    causes.push({
      type: 'FieldValueInvalid',
      message: `Invalid value: ${value}: ${path} in body should be ${rule}`,
      field: path,
    });
  };
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === 'number') {
    if (exclusiveMinimum === true ? value <= minimum : value < minimum) {
      fail(`greater than ${exclusiveMinimum === true ? '' : 'or equal to '}${minimum}`);
    }
  }
  if (typeof maximum === 'number') {
    if (exclusiveMaximum === true ? value >= maximum : value > maximum) {
      fail(`less than ${exclusiveMaximum === true ? '' : 'or equal to '}${maximum}`);
    }
  }
  if (typeof multipleOf === 'number' && multipleOf > 0 && !Number.isInteger(value / multipleOf)) {
    fail(`a multiple of ${multipleOf}`);
  }
}

function checkString(value: string, schema: Json, path: string, causes: CrdCause[]): void {
  // JSON Schema lengths count characters (code points), as Go's utf8.RuneCountInString.
  const length = [...value].length;
  const { minLength, maxLength, pattern } = schema;
  if (typeof maxLength === 'number' && length > maxLength) {
    causes.push({
      type: 'FieldValueTooLong',
      message: `Too long: may not be longer than ${maxLength}`,
      field: path,
    });
  }
  if (typeof minLength === 'number' && length < minLength) {
    causes.push({
      type: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: ${path} in body should be at least ${minLength} chars long`,
      field: path,
    });
  }
  if (typeof pattern === 'string') {
    let matches = true;
    try {
      matches = new RegExp(pattern, 'u').test(value);
    } catch {
      // kube refuses such a schema when the CRD is created; an unparsable pattern here validates nothing.
    }
    if (!matches) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(value)}: ${path} in body should match '${pattern}'`,
        field: path,
      });
    }
  }
}
