// CRD manifests from YAML/JSON files and directories (multi-document, `kind: List`), checked before they
// reach an API server; the role of controller-runtime envtest's CRDInstallOptions.Paths reader.
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { errorMessage, LassoError } from '@lasso/core';
import { parseAllDocuments } from 'yaml';

/**
 * A CRD file that cannot be used; the message names the file, the document (1-based) and the field.
 * Code `LASSO_INVALID_OBJECT`.
 */
export class CrdLoadError extends LassoError {
  /** The file (or the `source` given to {@link parseCrdYaml}). */
  readonly source: string;
  /** 1-based document number in the file; undefined for file-level errors. */
  readonly document: number | undefined;
  /** The offending field path (`spec.versions`); undefined for syntax and file errors. */
  readonly field: string | undefined;

  constructor(
    message: string,
    details: { source: string; document?: number; field?: string },
    options?: { cause?: unknown },
  ) {
    super('LASSO_INVALID_OBJECT', message, options);
    this.source = details.source;
    this.document = details.document;
    this.field = details.field;
  }
}

const crdExtensions = new Set(['.yaml', '.yml', '.json']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function describe(value: unknown): string {
  return value === undefined ? 'missing' : `got ${JSON.stringify(value)}`;
}

function checkCrd(
  crd: unknown,
  at: (field: string | undefined, message: string) => CrdLoadError,
): Record<string, unknown> {
  if (!isRecord(crd))
    throw at(undefined, `expected a CustomResourceDefinition object, ${describe(crd)}`);
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw at('apiVersion', `must be "apiextensions.k8s.io/v1", ${describe(crd.apiVersion)}`);
  }
  if (crd.kind !== 'CustomResourceDefinition') {
    throw at('kind', `must be "CustomResourceDefinition", ${describe(crd.kind)}`);
  }
  const spec = crd.spec;
  if (!isRecord(spec)) throw at('spec', `must be an object, ${describe(spec)}`);
  const nonEmpty = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || value === '')
      throw at(field, `must be a non-empty string, ${describe(value)}`);
    return value;
  };
  const group = nonEmpty(spec.group, 'spec.group');
  const names = spec.names;
  if (!isRecord(names)) throw at('spec.names', `must be an object, ${describe(names)}`);
  const plural = nonEmpty(names.plural, 'spec.names.plural');
  nonEmpty(names.kind, 'spec.names.kind');
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    throw at('spec.scope', `must be "Namespaced" or "Cluster", ${describe(spec.scope)}`);
  }
  const metadata = crd.metadata;
  const name = isRecord(metadata) ? metadata.name : undefined;
  if (name !== `${plural}.${group}`) {
    throw at(
      'metadata.name',
      `must be spec.names.plural+"."+spec.group ("${plural}.${group}"), ${describe(name)}`,
    );
  }
  const versions = spec.versions;
  if (!Array.isArray(versions) || versions.length === 0) {
    throw at('spec.versions', `must be a non-empty list, ${describe(versions)}`);
  }
  let storage = 0;
  versions.forEach((version: unknown, index) => {
    const field = `spec.versions[${index}]`;
    if (!isRecord(version)) throw at(field, `must be an object, ${describe(version)}`);
    nonEmpty(version.name, `${field}.name`);
    if (typeof version.served !== 'boolean')
      throw at(`${field}.served`, `must be a boolean, ${describe(version.served)}`);
    if (typeof version.storage !== 'boolean')
      throw at(`${field}.storage`, `must be a boolean, ${describe(version.storage)}`);
    if (version.storage) storage++;
  });
  if (storage !== 1)
    throw at(
      'spec.versions',
      `must have exactly one version marked storage: true, found ${storage}`,
    );
  return crd;
}

/**
 * Parse the CRDs in a YAML (or JSON) text: several `---` documents, `kind: List` documents of CRDs,
 * empty documents skipped. Each CRD must be `apiextensions.k8s.io/v1` with `spec.group`,
 * `spec.names.plural`/`kind`, `spec.scope` and `spec.versions` holding exactly one storage version.
 *
 * Throws {@link CrdLoadError} naming `source`, the 1-based document number and the field.
 */
export function parseCrdYaml(text: string, source = '<input>'): Array<Record<string, unknown>> {
  const crds: Array<Record<string, unknown>> = [];
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) return crds; // an empty stream
  documents.forEach((parsed, index) => {
    const document = index + 1;
    const error = parsed.errors[0];
    if (error !== undefined) {
      throw new CrdLoadError(
        `${source}: document ${document}: invalid YAML: ${error.message}`,
        { source, document },
        {
          cause: error,
        },
      );
    }
    const value: unknown = parsed.toJS();
    if (value === null || value === undefined) return;
    const at =
      (prefix: string) =>
      (field: string | undefined, message: string): CrdLoadError =>
        new CrdLoadError(
          `${source}: document ${document}${prefix}: ${field === undefined ? '' : `${field}: `}${message}`,
          {
            source,
            document,
            ...(field === undefined ? {} : { field }),
          },
        );
    if (isRecord(value) && value.kind === 'List') {
      const items = value.items;
      if (!Array.isArray(items)) throw at('')('items', `must be a list, ${describe(items)}`);
      items.forEach((item: unknown, itemIndex) => {
        crds.push(checkCrd(item, at(`, items[${itemIndex}]`)));
      });
      return;
    }
    crds.push(checkCrd(value, at('')));
  });
  return crds;
}

async function filesOf(path: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new CrdLoadError(
      `${path}: cannot read CRD path: ${errorMessage(error)}`,
      { source: path },
      { cause: error },
    );
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && crdExtensions.has(extname(entry.name).toLowerCase()))
    .map((entry) => join(path, entry.name))
    .sort();
}

/**
 * Load the CRDs from files and directories: a directory contributes its `*.yaml`, `*.yml` and
 * `*.json` files (sorted, not recursive); a file is read whatever its extension. Order is preserved.
 *
 * Throws {@link CrdLoadError} for a missing path or a bad document (naming the file, document and field).
 */
export async function loadCrdFiles(paths: string[]): Promise<Array<Record<string, unknown>>> {
  if (!Array.isArray(paths) || paths.some((path) => typeof path !== 'string' || path === '')) {
    throw new TypeError('paths must be a list of non-empty strings');
  }
  const crds: Array<Record<string, unknown>> = [];
  for (const path of paths) {
    for (const file of await filesOf(path)) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new CrdLoadError(
          `${file}: cannot read CRD file: ${errorMessage(error)}`,
          { source: file },
          { cause: error },
        );
      }
      crds.push(...parseCrdYaml(text, file));
    }
  }
  return crds;
}
