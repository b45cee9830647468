// generateTypes: CRDs in, TypeScript modules out (one per group/version and an index), deterministic.
import { type CrdVersion, crdVersions, isRecord, type SourcedCrd } from './crd.ts';
import { CodegenInputError } from './errors.ts';
import { type RenderedModule, renderIndex, renderModule } from './render.ts';
import { type KindModel, kindModel } from './schema-model.ts';

/**
 * Options of {@link generateTypes}.
 *
 * @example
 * ```ts
 * const options: GenerateOptions = { importExtension: '.ts', kindTokens: true, groups: ['example.com'] };
 * const files = generateTypes(await loadCrdFiles(['crds/']), options);
 * ```
 */
export interface GenerateOptions {
  /**
   * The extension of the index's relative imports: `'.js'` (default; what Node's ESM resolution and
   * `moduleResolution: NodeNext` want) or `'.ts'` (with `allowImportingTsExtensions`), or `''` (bundlers).
   */
  readonly importExtension?: '.js' | '.ts' | '' | undefined;
  /**
   * Whether each kind gets a `Kind<T>` token from `@lasso/factory` (default true). Without tokens the modules
   * import only `kubernetes-types`.
   */
  readonly kindTokens?: boolean | undefined;
  /** Only CRDs of these API groups (default: every group given). */
  readonly groups?: readonly string[] | undefined;
}

function sourcedOf(input: unknown, index: number): SourcedCrd {
  if (isRecord(input) && 'crd' in input && typeof input.source === 'string' && !('kind' in input)) {
    return { source: input.source, crd: input.crd };
  }
  return { source: `<input ${index}>`, crd: input };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * TypeScript modules for the CRDs `crds`: one file per API group and version (`<group>_<version>.ts`) and an
 * `index.ts`, as a map from file name to source text, in file name order. Each served version of each kind
 * gives `<Kind>` (with literal `apiVersion` and `kind` and `metadata: ObjectMeta`), `<Kind>List`, `<Kind>Spec`
 * and `<Kind>Status` (when the schema has them), a type per nested object named after its path, and a
 * `Kind<T>` token (`<kind>Kind`). The same CRDs in any order give the same text.
 *
 * `crds` holds CustomResourceDefinition objects (`apiextensions.k8s.io/v1`), or what {@link loadCrdFiles}
 * returns (then errors name the file). Throws a {@link CodegenInputError} naming the CRD's source and the path
 * of the bad field; a TypeError or RangeError for bad options.
 *
 * @example
 * ```ts
 * const files = generateTypes([
 *   {
 *     apiVersion: 'apiextensions.k8s.io/v1',
 *     kind: 'CustomResourceDefinition',
 *     metadata: { name: 'widgets.example.com' },
 *     spec: {
 *       group: 'example.com',
 *       scope: 'Namespaced',
 *       names: { kind: 'Widget', plural: 'widgets' },
 *       versions: [
 *         {
 *           name: 'v1',
 *           served: true,
 *           storage: true,
 *           schema: {
 *             openAPIV3Schema: {
 *               type: 'object',
 *               properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
 *             },
 *           },
 *         },
 *       ],
 *     },
 *   },
 * ]);
 * console.log([...files.keys()]); // ['example.com_v1.ts', 'index.ts']
 * ```
 */
export function generateTypes(
  crds: readonly unknown[],
  options: GenerateOptions = {},
): Map<string, string> {
  if (!Array.isArray(crds)) throw new TypeError('generateTypes: crds must be an array');
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('generateTypes: options must be an object');
  }
  const importExtension = options.importExtension ?? '.js';
  if (importExtension !== '.js' && importExtension !== '.ts' && importExtension !== '') {
    throw new RangeError(
      `generateTypes: options.importExtension must be '.js', '.ts' or '', got ${JSON.stringify(importExtension)}`,
    );
  }
  const kindTokens = options.kindTokens ?? true;
  if (typeof kindTokens !== 'boolean') {
    throw new TypeError('generateTypes: options.kindTokens must be true or false');
  }
  const groups = options.groups;
  if (
    groups !== undefined &&
    (!Array.isArray(groups) || groups.some((group) => typeof group !== 'string'))
  ) {
    throw new TypeError('generateTypes: options.groups must be a list of API group names');
  }

  const versions: CrdVersion[] = crds.flatMap((input, index) => {
    const { source, crd } = sourcedOf(input, index);
    return crdVersions(crd, source);
  });
  const byModule = new Map<string, Map<string, CrdVersion>>();
  for (const version of versions) {
    if (groups !== undefined && !groups.includes(version.group)) continue;
    const key = `${version.group}\u0000${version.version}`;
    const kinds = byModule.get(key) ?? new Map<string, CrdVersion>();
    byModule.set(key, kinds);
    const earlier = kinds.get(version.kind);
    if (earlier !== undefined) {
      throw new CodegenInputError(
        version.source,
        'spec.names.kind',
        `${version.kind} (${version.group}/${version.version}) is also defined by ${earlier.source}`,
      );
    }
    kinds.set(version.kind, version);
  }
  const modules: RenderedModule[] = [...byModule.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([, kinds]) => {
      const sorted = [...kinds.values()].sort((a, b) => compare(a.kind, b.kind));
      const first = sorted[0] as CrdVersion;
      const models: KindModel[] = sorted.map(kindModel);
      return renderModule(first.group, first.version, models, { importExtension, kindTokens });
    });
  const files = new Map<string, string>();
  const names = [...modules.map((module) => module.fileName), 'index.ts'].sort(compare);
  for (const name of names) {
    const module = modules.find((candidate) => candidate.fileName === name);
    files.set(
      name,
      module === undefined ? renderIndex(modules, { importExtension, kindTokens }) : module.source,
    );
  }
  return files;
}
