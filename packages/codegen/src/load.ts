// Reading CRDs from files and directories: YAML (multi-document) and JSON, a List of CRDs included; documents
// that are not CRDs are skipped, so a directory of manifests can be given as is.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '@lasso/core';
import { parseAllDocuments } from 'yaml';
import { isCrdDocument, isRecord, type SourcedCrd } from './crd.ts';
import { CodegenInputError } from './errors.ts';

const extensions = /\.(ya?ml|json)$/i;

/**
 * The CRDs in the text of one file: every YAML document (or the JSON value) that is a
 * CustomResourceDefinition, or the items of a List that are. `fileName` names the file in errors and in each
 * result's `source` (with the document number when the file holds several). Throws a {@link CodegenInputError}
 * naming the file and line when the text does not parse.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 *
 * const crds = parseCrdDocuments(readFileSync('crd.yaml', 'utf8'), 'crd.yaml');
 * const files = generateTypes(crds);
 * ```
 */
export function parseCrdDocuments(content: string, fileName: string): SourcedCrd[] {
  if (typeof content !== 'string')
    throw new TypeError('parseCrdDocuments: content must be a string');
  if (typeof fileName !== 'string')
    throw new TypeError('parseCrdDocuments: fileName must be a string');
  const values: unknown[] = [];
  if (/\.json$/i.test(fileName)) {
    try {
      values.push(JSON.parse(content));
    } catch (error) {
      throw new CodegenInputError(fileName, '', `not valid JSON: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  } else {
    const documents = parseAllDocuments(content);
    const list = Array.isArray(documents) ? documents : [];
    list.forEach((document, index) => {
      const error = document.errors[0];
      if (error !== undefined) {
        const at = error.linePos?.[0];
        throw new CodegenInputError(
          list.length > 1 ? `${fileName} (document ${index + 1})` : fileName,
          '',
          `not valid YAML${at === undefined ? '' : ` at line ${at.line}, column ${at.col}`}: ${error.message.split('\n')[0]}`,
          { cause: error },
        );
      }
      values.push(document.toJS({ maxAliasCount: 100 }));
    });
  }
  const several = values.length > 1;
  const out: SourcedCrd[] = [];
  values.forEach((value, index) => {
    const source = several ? `${fileName} (document ${index + 1})` : fileName;
    if (isCrdDocument(value)) {
      out.push({ source, crd: value });
    } else if (isRecord(value) && Array.isArray(value.items) && /List$/.test(String(value.kind))) {
      value.items.forEach((item: unknown, itemIndex: number) => {
        if (isCrdDocument(item)) out.push({ source: `${source} items[${itemIndex}]`, crd: item });
      });
    }
  });
  return out;
}

async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const files: string[] = [];
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(child)));
    else if (extensions.test(entry.name)) files.push(child);
  }
  return files;
}

/**
 * The CRDs in `paths`: files (YAML, multi-document, or JSON) and directories (every `.yaml`, `.yml` and
 * `.json` file below them, in name order). Documents that are not CRDs are skipped. Throws a
 * {@link CodegenInputError} naming the file when one cannot be read or parsed.
 *
 * @example
 * ```ts
 * const crds = await loadCrdFiles(['manifests/crd.yaml', 'vendor/crds/']);
 * const files = generateTypes(crds, { importExtension: '.js' });
 * ```
 */
export async function loadCrdFiles(paths: readonly string[]): Promise<SourcedCrd[]> {
  if (!Array.isArray(paths) || paths.some((path) => typeof path !== 'string')) {
    throw new TypeError('loadCrdFiles: paths must be a list of file or directory names');
  }
  const out: SourcedCrd[] = [];
  for (const path of paths) {
    let files: string[];
    try {
      files = await filesUnder(path);
    } catch (error) {
      throw new CodegenInputError(path, '', `cannot read: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    for (const file of files) {
      let content: string;
      try {
        content = await readFile(file, 'utf8');
      } catch (error) {
        throw new CodegenInputError(file, '', `cannot read: ${errorMessage(error)}`, {
          cause: error,
        });
      }
      out.push(...parseCrdDocuments(content, file));
    }
  }
  return out;
}
