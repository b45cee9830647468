// The lasso-codegen command: CRD files, directories or a cluster in, a directory of modules out.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadKubeConfig, RestTransport } from '@lasso/client';
import { errorMessage } from '@lasso/core';
import { listClusterCrds } from './cluster.ts';
import type { SourcedCrd } from './crd.ts';
import { CodegenInputError } from './errors.ts';
import { type GenerateOptions, generateTypes } from './generate.ts';
import { loadCrdFiles } from './load.ts';

/**
 * The command's usage text (what `lasso-codegen --help` prints).
 *
 * @example
 * ```ts
 * process.stdout.write(codegenUsage);
 * ```
 */
export const codegenUsage = `Usage: lasso-codegen FILE|DIR... --out DIR [options]
       lasso-codegen --kubeconfig PATH --out DIR [options]

Writes TypeScript types for CustomResourceDefinitions (apiextensions.k8s.io/v1): one module per group/version
(<group>_<version>.ts) and an index.ts. Reads YAML (several documents per file) and JSON; a directory is read
for every .yaml, .yml and .json file below it; documents that are not CRDs are skipped.

Options:
  --out DIR                 where the modules go (created when missing)
  --kubeconfig PATH         also read the CRDs the cluster of this kubeconfig serves
  --context NAME            the kubeconfig context (default: its current-context)
  --group GROUP             only CRDs of this API group (repeatable)
  --import-extension EXT    .js (default), .ts, or none: the extension of the index's imports
  --no-kind-tokens          no Kind<T> tokens, so no import of @lasso/factory
  --check                   write nothing; exit 1 when a file in --out differs from what would be written
  -h, --help                this text

Exit codes: 0 done (or up to date with --check), 1 bad input, unreadable file, cluster error or stale
output, 2 bad usage.
`;

/**
 * Where the command writes: `process.stdout`/`process.stderr` fit.
 *
 * @example
 * ```ts
 * let output = '';
 * const io: CodegenIo = { stdout: { write: (text: string) => (output += text) }, stderr: process.stderr };
 * await runCodegen(['--help'], io);
 * ```
 */
export interface CodegenIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Stops a cluster read. */
  readonly signal?: AbortSignal | undefined;
}

class UsageError extends Error {}

interface Flags {
  inputs: string[];
  out: string;
  kubeconfig: string | undefined;
  context: string | undefined;
  groups: string[] | undefined;
  importExtension: '.js' | '.ts' | '';
  kindTokens: boolean;
  check: boolean;
  help: boolean;
}

function parseFlags(argv: readonly string[]): Flags {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        group: { type: 'string', multiple: true },
        'import-extension': { type: 'string' },
        'no-kind-tokens': { type: 'boolean' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const values = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const help = values.help === true;
  const out = values.out as string | undefined;
  const kubeconfig = values.kubeconfig as string | undefined;
  if (!help) {
    if (out === undefined || out === '') throw new UsageError('--out DIR is required');
    if (parsed.positionals.length === 0 && kubeconfig === undefined) {
      throw new UsageError('give CRD files or directories, or --kubeconfig PATH');
    }
  }
  const extension = (values['import-extension'] as string | undefined) ?? '.js';
  if (!['.js', '.ts', 'none'].includes(extension)) {
    throw new UsageError(
      `--import-extension must be .js, .ts or none, got ${JSON.stringify(extension)}`,
    );
  }
  if (values.context !== undefined && kubeconfig === undefined) {
    throw new UsageError('--context needs --kubeconfig');
  }
  return {
    inputs: parsed.positionals,
    out: out ?? '',
    kubeconfig,
    context: values.context as string | undefined,
    groups: values.group as string[] | undefined,
    importExtension: extension === 'none' ? '' : (extension as '.js' | '.ts'),
    kindTokens: values['no-kind-tokens'] !== true,
    check: values.check === true,
    help,
  };
}

async function clusterCrds(flags: Flags, signal: AbortSignal | undefined): Promise<SourcedCrd[]> {
  const rest = await loadKubeConfig({
    path: flags.kubeconfig as string,
    ...(flags.context === undefined ? {} : { context: flags.context }),
  });
  // Its own transport, closed here: it ends the connection and a running exec credential plugin.
  const transport = new RestTransport(rest);
  try {
    return await listClusterCrds(transport, signal === undefined ? {} : { signal });
  } finally {
    await transport.close();
  }
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Run `lasso-codegen` with `argv` (the arguments after the command name); resolves to the exit code: 0 done,
 * 1 bad input (the message names the file and the path in the CRD), an unreadable file, a cluster error or
 * (with `--check`) stale output, 2 bad usage. Never throws for bad input; writes messages to `io`.
 *
 * @example
 * ```ts
 * const code = await runCodegen(['manifests/crd.yaml', '--out', 'src/generated'], process);
 * process.exitCode = code;
 * ```
 */
export async function runCodegen(argv: readonly string[], io: CodegenIo): Promise<number> {
  let flags: Flags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`lasso-codegen: ${error.message}\n\n${codegenUsage}`);
    return 2;
  }
  if (flags.help) {
    io.stdout.write(codegenUsage);
    return 0;
  }
  let files: Map<string, string>;
  try {
    const crds = await loadCrdFiles(flags.inputs);
    if (flags.kubeconfig !== undefined) crds.push(...(await clusterCrds(flags, io.signal)));
    if (crds.length === 0) {
      io.stderr.write(
        `lasso-codegen: no CustomResourceDefinition in ${flags.inputs.join(', ') || 'the cluster'}\n`,
      );
      return 1;
    }
    const options: GenerateOptions = {
      importExtension: flags.importExtension,
      kindTokens: flags.kindTokens,
      ...(flags.groups === undefined ? {} : { groups: flags.groups }),
    };
    files = generateTypes(crds, options);
    if (files.size === 1) {
      io.stderr.write(
        `lasso-codegen: no CustomResourceDefinition of the groups ${flags.groups?.join(', ')} among ${crds.length}\n`,
      );
      return 1;
    }
  } catch (error) {
    // Input errors name their file and path; a cluster error says what the server or transport said.
    const prefix = error instanceof CodegenInputError ? '' : 'cannot read the inputs: ';
    io.stderr.write(`lasso-codegen: ${prefix}${errorMessage(error)}\n`);
    return 1;
  }
  if (flags.check) {
    const stale: string[] = [];
    for (const [name, content] of files) {
      if ((await readOrUndefined(join(flags.out, name))) !== content) stale.push(name);
    }
    if (stale.length > 0) {
      io.stderr.write(
        `lasso-codegen: ${stale.length} file(s) in ${flags.out} are not what lasso-codegen generates: ${stale.join(', ')}\n`,
      );
      return 1;
    }
    io.stdout.write(`lasso-codegen: ${files.size} file(s) in ${flags.out} are up to date\n`);
    return 0;
  }
  try {
    await mkdir(flags.out, { recursive: true });
    for (const [name, content] of files) {
      const path = join(flags.out, name);
      // Unchanged files keep their mtime, so that watchers and build caches see no change.
      if ((await readOrUndefined(path)) !== content) await writeFile(path, content);
    }
  } catch (error) {
    io.stderr.write(`lasso-codegen: cannot write to ${flags.out}: ${errorMessage(error)}\n`);
    return 1;
  }
  io.stdout.write(`lasso-codegen: wrote ${[...files.keys()].join(', ')} to ${flags.out}\n`);
  return 0;
}
