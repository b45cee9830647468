// OpenAPI definitions of a CustomResourceDefinition's kinds, shaped as apiextensions-apiserver publishes
// them: the version's structural schema with apiVersion/kind/metadata filled in (metadata by reference to
// ObjectMeta), the `x-kubernetes-group-version-kind` extension, and a `<Kind>List` definition. OpenAPI v2
// gets the schema with the keywords v2 cannot express removed, as apiextensions' v2 conversion does.

import { isRecord } from '../apimachinery/objects.ts';
import {
  apiVersionDescription,
  kindDescription,
  listDefinition,
  names,
} from './builtin-definitions.ts';
import { ref, type Schema } from './schema.ts';

type Json = Record<string, unknown>;

/**
 * The definition name of a custom kind: the group reversed, then version and kind
 * (`widgets.example.com/v1 Widget` is `com.example.widgets.v1.Widget`), as apiextensions names it.
 */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

/** What the publisher needs to know about one served version of a CRD. */
export interface CustomVersion {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  /** The version's `schema.openAPIV3Schema`, if any. */
  schema: Json | undefined;
}

/** The served versions of a CRD object. */
export function customVersions(crd: Json): CustomVersion[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const plural = String(names.plural ?? '');
  const listKind = typeof names.listKind === 'string' ? names.listKind : `${kind}List`;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  return versions
    .filter((version) => version.served === true)
    .map((version) => {
      const schema = isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
      return {
        group,
        version: String(version.name ?? ''),
        kind,
        listKind,
        plural,
        schema: isRecord(schema) ? schema : undefined,
      };
    });
}

// Schema keywords OpenAPI v2 cannot carry; apiextensions drops them from the v2 document.
const v3Only = new Set(['nullable', 'anyOf', 'oneOf', 'not', 'allOf', 'x-kubernetes-validations']);

function forV2(schema: Json): Json {
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (v3Only.has(key)) continue;
    if ((key === 'items' || key === 'additionalProperties') && isRecord(value)) {
      copy[key] = forV2(value);
    } else if (key === 'properties' && isRecord(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, item]) => [name, isRecord(item) ? forV2(item) : item]),
      );
    } else copy[key] = value;
  }
  // A nullable field, or an int-or-string, has no single v2 type: v2 clients must accept any value.
  if (schema.nullable === true || schema['x-kubernetes-int-or-string'] === true) {
    delete copy.type;
    delete copy.items;
    delete copy.properties;
    delete copy.additionalProperties;
  }
  return copy;
}

function kindSchema(version: CustomVersion, flavour: 'v2' | 'v3'): Schema {
  const base: Json =
    version.schema === undefined ? { type: 'object' } : structuredClone(version.schema);
  const schema = flavour === 'v2' ? forV2(base) : base;
  const properties = isRecord(schema.properties) ? { ...schema.properties } : {};
  properties.apiVersion = { description: apiVersionDescription, type: 'string' };
  properties.kind = { description: kindDescription, type: 'string' };
  properties.metadata = ref(names.objectMeta, {
    description: 'Standard object metadata.',
  });
  schema.type = 'object';
  schema.properties = Object.fromEntries(
    Object.entries(properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  schema['x-kubernetes-group-version-kind'] = [
    { group: version.group, version: version.version, kind: version.kind },
  ];
  return schema;
}

/** The kind and list definitions of one served CRD version, keyed by definition name. */
export function customDefinitions(
  version: CustomVersion,
  flavour: 'v2' | 'v3',
): Map<string, Schema> {
  const kindName = customDefinitionName(version.group, version.version, version.kind);
  const listName = customDefinitionName(version.group, version.version, version.listKind);
  return new Map([
    [kindName, kindSchema(version, flavour)],
    [
      listName,
      listDefinition(
        kindName,
        { group: version.group, version: version.version, kind: version.listKind },
        version.plural,
      ),
    ],
  ]);
}
