// Serving CustomResourceDefinitions: validation of the CRD, the resources it serves, its status
// conditions, and pruning/validation of custom objects by the structural schema (apiextensions-apiserver).

import { isRecord } from '../apimachinery/objects.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import { evaluateRules } from '../schema/cel/rules.ts';
import { validateCrdSchema } from '../schema/crd-schema.ts';
import { applyDefaults } from '../schema/defaulting.ts';
import type { SchemaCause } from '../schema/field-errors.ts';
import { validateListTypes } from '../schema/list-types.ts';
import { pruneNonNullableNulls, pruneUnknownFields } from '../schema/pruning.ts';
import { validateValue } from '../schema/structural-validation.ts';

type Json = Record<string, unknown>;

function asString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A validation failure cause in apimachinery/name-validation.ts's shape. */
export type CrdCause = SchemaCause;

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
    causes.push(...schemaCauses(versions));
  }
  return causes;
}

// kube hoists a schema every version shares to spec.validation and reports its errors there.
function schemaCauses(versions: Json[]): CrdCause[] {
  const schemas = versions.map((version) =>
    isRecord(version.schema) && isRecord(version.schema.openAPIV3Schema)
      ? version.schema.openAPIV3Schema
      : undefined,
  );
  const first = JSON.stringify(schemas[0]);
  if (schemas[0] !== undefined && schemas.every((schema) => JSON.stringify(schema) === first)) {
    return validateCrdSchema(schemas[0], 'spec.validation.openAPIV3Schema');
  }
  return schemas.flatMap((schema, index) =>
    schema === undefined
      ? []
      : validateCrdSchema(schema, `spec.versions[${index}].schema.openAPIV3Schema`),
  );
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
    const schema = schemaOf(crd, info.version);
    if (schema !== undefined) servedSchemas.set(info, schema);
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

/**
 * Prepare a custom object's request body as apiextensions does before validation, in place: drop the fields
 * the structural schema does not know, apply the schema's defaults, then drop the nulls of non-nullable
 * fields that no default replaced.
 */
export function pruneObject(object: Json, schema: Json): void {
  pruneUnknownFields(object, schema);
  applyDefaults(object, schema);
  pruneNonNullableNulls(object, schema);
}

/**
 * Apply the schema's defaults to a custom object read from storage, in place (kube defaults on read too,
 * without writing back, so objects stored before a default was added show it).
 */
export function defaultObject(object: Json, schema: Json): void {
  applyDefaults(object, schema);
}

/**
 * Field errors of a custom object against its CRD's schema: the structural schema keywords and formats,
 * list-type uniqueness, then the x-kubernetes-validations rules (with `old`, the stored object an update
 * replaces, transition rules too), with kube's messages, reasons and fields.
 */
export function validateAgainstSchema(object: Json, schema: Json): CrdCause[] {
  return [
    ...validateValue(object, schema),
    ...validateListTypes(object, schema),
    ...evaluateRules(object, schema, undefined, 'plain'),
  ];
}

/**
 * Field errors of the CEL transition rules (those reading `oldSelf`) of an update from `old` to `object`;
 * the other rules are {@link validateAgainstSchema}'s.
 */
export function validateTransitionRules(object: Json, schema: Json, old: Json): CrdCause[] {
  return evaluateRules(object, schema, old, 'transition');
}

// The schema of each served version, by the ResourceInfo the registry hands to requests (read defaulting
// needs it where only the info is at hand).
const servedSchemas = new WeakMap<ResourceInfo, Json>();

/** The openAPIV3Schema a custom resource version was registered with by {@link crdResources}. */
export function servedSchema(info: ResourceInfo): Json | undefined {
  return servedSchemas.get(info);
}
