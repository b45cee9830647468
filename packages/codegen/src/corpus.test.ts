// The corpus: real CRDs from their projects (test/corpus/<project>/SOURCES.md names each file's origin and
// licence), generated together and type-checked with the TypeScript compiler under the strictest options a
// consumer may set, against the real @lasso/factory and kubernetes-types.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generateTypes, loadCrdFiles } from './index.ts';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpusDir = join(packageDir, 'test', 'corpus');

/** Type-check `files` as if they were in `dir`; returns the diagnostics, formatted. */
export function typeCheck(files: ReadonlyMap<string, string>, dir: string): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    // The sibling packages from source, as the project's tests read them: no build needed.
    customConditions: ['@lasso/source'],
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
  };
  const virtual = new Map([...files].map(([name, text]) => [join(dir, name), text]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError, shouldCreate) => {
    const text = virtual.get(fileName);
    return text === undefined
      ? getSourceFile(fileName, language, onError, shouldCreate)
      : ts.createSourceFile(fileName, text, language);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (name) => name === dir || (directoryExists?.(name) ?? false);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName) ?? readFile(fileName);
  // The generated files are ESM (the package.json of `dir` is the codegen package's, "type": "module").
  const program = ts.createProgram([...virtual.keys()], options, host);
  // The generated files and every declaration file (skipLibCheck: false), not the sibling packages' sources
  // the token import reaches: their own typecheck covers them, and another package's work in progress must
  // not fail this test.
  const checked = program
    .getSourceFiles()
    .filter((file) => virtual.has(file.fileName) || file.isDeclarationFile);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  });
}

describe('the corpus of real CRDs', () => {
  it('generates every CRD, and the output compiles under strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess', async () => {
    const crds = await loadCrdFiles([corpusDir]);
    expect(
      crds.map((crd) => (crd.crd as { metadata: { name: string } }).metadata.name).sort(),
    ).toEqual([
      'applications.argoproj.io',
      'certificates.cert-manager.io',
      'compositions.apiextensions.crossplane.io',
      'issuers.cert-manager.io',
      'kustomizations.kustomize.toolkit.fluxcd.io',
      'prometheusrules.monitoring.coreos.com',
      'scaledobjects.keda.sh',
      'servicemonitors.monitoring.coreos.com',
      'virtualservices.networking.istio.io',
    ]);
    const files = generateTypes(crds, { importExtension: '.ts' });
    expect([...files.keys()]).toEqual([
      'apiextensions.crossplane.io_v1.ts',
      'argoproj.io_v1alpha1.ts',
      'cert-manager.io_v1.ts',
      'index.ts',
      'keda.sh_v1alpha1.ts',
      'kustomize.toolkit.fluxcd.io_v1.ts',
      'monitoring.coreos.com_v1.ts',
      'networking.istio.io_v1.ts',
      'networking.istio.io_v1alpha3.ts',
      'networking.istio.io_v1beta1.ts',
    ]);
    // A consumer: the kinds as objects, their tokens as the factories take them.
    files.set(
      'consumer.ts',
      [
        "import type { Kind } from '@lasso/factory';",
        "import { type Certificate, certificateKind, networkingIstioIoV1, type ScaledObject } from './index.ts';",
        "const certificate: Certificate = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'c' }, spec: { secretName: 's', issuerRef: { name: 'i' } } };",
        "const scaled: ScaledObject = { spec: { scaleTargetRef: { name: 'web' }, triggers: [{ type: 'cpu', metadata: { value: '50' } }] } };",
        'const token: Kind<Certificate> = certificateKind;',
        "const vs: networkingIstioIoV1.VirtualService = { spec: { hosts: ['a'], http: [{ timeout: '1s' }] } };",
        'export const all = [certificate, scaled, token, vs];',
        '',
      ].join('\n'),
    );
    const diagnostics = typeCheck(files, join(packageDir, '.corpus-check'));
    expect(diagnostics).toEqual([]);
  }, 60_000);

  it('is deterministic: the CRDs in reverse order give the same text', async () => {
    const crds = await loadCrdFiles([corpusDir]);
    const forward = generateTypes(crds);
    const backward = generateTypes([...crds].reverse());
    expect([...backward.entries()]).toEqual([...forward.entries()]);
  });
});
