// A CRD as codegen reads it: each served version of an apiextensions.k8s.io/v1 CustomResourceDefinition, checked
// field by field so that a bad document is reported with its file and the path of the bad field.
import { CodegenInputError } from './errors.ts';

/** A JSON schema object of a CRD (openAPIV3Schema or one of its nested schemas), as read. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** One served version of a CRD, ready for the generator. */
export interface CrdVersion {
  /** Where the CRD came from, for errors: a file and document, or `<input>`. */
  readonly source: string;
  /** `metadata.name` of the CRD. */
  readonly crdName: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Whether this version is the one the API server stores. */
  readonly storage: boolean;
  /** The version's deprecation warning, or `''` when it is deprecated without one; undefined when not. */
  readonly deprecated: string | undefined;
  readonly schema: JsonSchema;
  /** The path of `schema` in the CRD, for errors. */
  readonly schemaPath: string;
}

/**
 * A CRD read from a file: the object and where it came from. What `loadCrdFiles` returns and `generateTypes`
 * takes (then its errors name the file).
 *
 * @example
 * ```ts
 * const crds: SourcedCrd[] = await loadCrdFiles(['crds/']);
 * for (const { source } of crds) console.log(source); // crds/widget.yaml (document 2)
 * ```
 */
export interface SourcedCrd {
  /** The file (and document) it came from, as errors name it. */
  readonly source: string;
  /** The parsed CustomResourceDefinition. */
  readonly crd: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when the document is a CustomResourceDefinition of any apiextensions version. */
export function isCrdDocument(value: unknown): boolean {
  return (
    isRecord(value) &&
    value.kind === 'CustomResourceDefinition' &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith('apiextensions.k8s.io/')
  );
}

function text(value: unknown, source: string, path: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new CodegenInputError(source, path, `must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

/** A short, total description of a bad value for an error message (never the whole value). */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

/**
 * The served versions of one CRD document, each with its schema. Throws a {@link CodegenInputError} naming
 * `source` and the path of the first bad field.
 */
export function crdVersions(crd: unknown, source: string): CrdVersion[] {
  if (!isRecord(crd)) {
    throw new CodegenInputError(source, '', `a CRD must be an object, got ${describe(crd)}`);
  }
  if (crd.kind !== 'CustomResourceDefinition') {
    throw new CodegenInputError(
      source,
      'kind',
      `must be CustomResourceDefinition, got ${describe(crd.kind)}`,
    );
  }
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new CodegenInputError(
      source,
      'apiVersion',
      `must be apiextensions.k8s.io/v1 (v1beta1 CRDs are not served since Kubernetes 1.22), got ${describe(crd.apiVersion)}`,
    );
  }
  const metadata = isRecord(crd.metadata) ? crd.metadata : {};
  const spec = crd.spec;
  if (!isRecord(spec)) throw new CodegenInputError(source, 'spec', 'must be an object');
  const group = text(spec.group, source, 'spec.group');
  const names = spec.names;
  if (!isRecord(names)) throw new CodegenInputError(source, 'spec.names', 'must be an object');
  const kind = text(names.kind, source, 'spec.names.kind');
  const plural = text(names.plural, source, 'spec.names.plural');
  const listKind =
    names.listKind === undefined
      ? `${kind}List`
      : text(names.listKind, source, 'spec.names.listKind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    throw new CodegenInputError(
      source,
      'spec.scope',
      `must be Namespaced or Cluster, got ${describe(spec.scope)}`,
    );
  }
  const crdName =
    typeof metadata.name === 'string' && metadata.name !== ''
      ? metadata.name
      : `${plural}.${group}`;
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    throw new CodegenInputError(source, 'spec.versions', 'must be a non-empty list');
  }
  const versions: CrdVersion[] = [];
  spec.versions.forEach((entry: unknown, index: number) => {
    const at = `spec.versions[${index}]`;
    if (!isRecord(entry)) throw new CodegenInputError(source, at, 'must be an object');
    const version = text(entry.name, source, `${at}.name`);
    if (entry.served === false) return;
    const schema = isRecord(entry.schema) ? entry.schema.openAPIV3Schema : undefined;
    if (!isRecord(schema)) {
      throw new CodegenInputError(
        source,
        `${at}.schema.openAPIV3Schema`,
        `must be an object (a JSON schema), got ${describe(schema)}`,
      );
    }
    const warning = entry.deprecationWarning;
    versions.push({
      source,
      crdName,
      group,
      version,
      kind,
      listKind,
      plural,
      namespaced: spec.scope === 'Namespaced',
      storage: entry.storage === true,
      deprecated:
        entry.deprecated === true ? (typeof warning === 'string' ? warning : '') : undefined,
      schema,
      schemaPath: `${at}.schema.openAPIV3Schema`,
    });
  });
  return versions;
}
