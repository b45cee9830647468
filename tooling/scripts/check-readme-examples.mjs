#!/usr/bin/env node
// Type-checks the TypeScript blocks of every package README's "## Example" section against the package's own
// sources and tsconfig: an example is the first code a user copies, and nothing else would notice it drifting
// from the API.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** The ```ts blocks between "## Example" and the next "## " heading. */
export function exampleBlocks(markdown) {
  const section = /^## Example[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown);
  if (!section) return [];
  return [...section[1].matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

let failed = false;
for (const group of ['packages', 'apps']) {
  const groupDir = join(root, group);
  if (!existsSync(groupDir)) continue;
  for (const name of readdirSync(groupDir)) {
    const dir = join(groupDir, name);
    const readme = join(dir, 'README.md');
    if (!existsSync(readme) || !existsSync(join(dir, 'tsconfig.json'))) continue;
    const blocks = exampleBlocks(readFileSync(readme, 'utf8'));
    const where = relative(root, readme);
    if (blocks.length === 0) {
      process.stderr.write(`${where}: no \`\`\`ts block under "## Example"\n`);
      failed = true;
      continue;
    }
    const work = join(dir, '.readme-check');
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work);
    try {
      blocks.forEach((code, i) => {
        // `export {}` makes each block a module, so top-level await and repeated names are fine.
        writeFileSync(join(work, `example-${i + 1}.ts`), `${code}\nexport {};\n`);
      });
      writeFileSync(
        join(work, 'tsconfig.json'),
        JSON.stringify({
          extends: '../tsconfig.json',
          include: ['*.ts'],
          compilerOptions: { noEmit: true },
        }),
      );
      execFileSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json')], {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      failed = true;
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || String(error);
      process.stderr.write(`${where}: its example does not type-check:\n${output}\n`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}
process.exit(failed ? 1 : 0);
