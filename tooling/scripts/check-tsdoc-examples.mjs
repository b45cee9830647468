#!/usr/bin/env node
// Type-checks the ```ts blocks under `@example` in the TSDoc of every exported declaration (and its members) in
// packages/*/src, test files excepted, against the package's own sources and tsconfig, as
// check-readme-examples.mjs does for README examples: a TSDoc example is what an editor shows on hover, and
// nothing else would notice it drifting from the API. Prints every failure as `file:line: message`.
//
// What an example may rely on without writing it (keep it that way: everything else the example declares):
// - the names exported by its package (`.` and `./testing`) and by the @lasso packages the package depends
//   on, imported automatically when the block uses them and does not declare or import them itself (the
//   package's own names win);
// - the ambient declarations of tooling/scripts/tsdoc-examples/<package dir>.d.ts (e.g. `declare const
//   logger: Logger;`), small and explicit, one file per package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const preambles = join(import.meta.dirname, 'tsdoc-examples');

const isTestFile = (name) => /\.(test|test-d|spec|bench)\.ts$/.test(name);

/** Every non-test .ts file under `dir`. */
function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__snapshots__' && entry.name !== '__tests__')
        files.push(...sourceFiles(path));
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !isTestFile(entry.name)
    ) {
      files.push(path);
    }
  }
  return files;
}

const hasExport = (node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/**
 * The ```ts blocks under `@example` tags of the JSDoc comments attached to exported declarations of `text`,
 * each with the 1-based line of its first code line.
 */
export function exampleBlocks(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const comments = new Set();
  const visit = (node) => {
    for (const doc of node.jsDoc ?? []) comments.add(doc);
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) if (hasExport(statement)) visit(statement);
  const blocks = [];
  for (const doc of [...comments].sort((a, b) => a.pos - b.pos)) {
    const startLine = source.getLineAndCharacterOfPosition(doc.getStart(source)).line + 1;
    const lines = text
      .slice(doc.getStart(source), doc.end)
      .split('\n')
      .map((line) => line.replace(/^\s*\/?\*+\/?\s?/, '').replace(/\s*\*\/\s*$/, ''));
    let inExample = false;
    let code;
    lines.forEach((line, index) => {
      if (code !== undefined) {
        if (/^\s*```\s*$/.test(line)) {
          blocks.push(code);
          code = undefined;
        } else {
          code.lines.push(line);
        }
        return;
      }
      if (/^@example\b/.test(line)) inExample = true;
      else if (/^@\w/.test(line)) inExample = false;
      else if (inExample && /^```(ts|typescript)\s*$/.test(line.trim())) {
        code = { line: startLine + index + 1, lines: [] };
      }
    });
  }
  return blocks.map((block) => ({ line: block.line, code: block.lines.join('\n') }));
}

/** Names exported by a module file: `name -> isTypeOnly`. */
function exportsOf(file) {
  const names = new Map();
  if (!existsSync(file)) return names;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  for (const statement of source.statements) {
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) {
        names.set(element.name.text, statement.isTypeOnly || element.isTypeOnly);
      }
    } else if (hasExport(statement)) {
      const typeOnly = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (ts.isIdentifier(declaration.name)) names.set(declaration.name.text, false);
        }
      } else if (statement.name && ts.isIdentifier(statement.name)) {
        names.set(statement.name.text, typeOnly);
      }
    }
  }
  return names;
}

/** `name -> { from, typeOnly }` for everything an example of `dir`'s package may use without importing it. */
function importableNames(dir, manifest) {
  const importable = new Map();
  const add = (packageDir, specifier) => {
    const subpath = specifier.split('/').slice(2).join('/');
    const entry = join(packageDir, 'src', subpath === '' ? 'index.ts' : join(subpath, 'index.ts'));
    for (const [name, typeOnly] of exportsOf(entry)) {
      if (!importable.has(name)) importable.set(name, { from: specifier, typeOnly });
    }
  };
  add(dir, manifest.name);
  if (manifest.exports?.['./testing']) add(dir, `${manifest.name}/testing`);
  const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
  for (const name of Object.keys(dependencies).filter((n) => n.startsWith('@lasso/'))) {
    add(join(dir, '..', name.slice('@lasso/'.length)), name);
  }
  return importable;
}

/** Names a block declares or imports itself at its top level. */
function declaredNames(code) {
  const source = ts.createSourceFile('block.ts', code, ts.ScriptTarget.Latest, true);
  const names = new Set();
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements ?? []) if (element.name) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) names.add(e.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (statement.name && ts.isIdentifier(statement.name)) {
      names.add(statement.name.text);
    }
  }
  return names;
}

/** The import lines for the importable names `code` uses and does not declare. */
function importsFor(code, importable) {
  const declared = declaredNames(code);
  const used = new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const byModule = new Map();
  for (const name of used) {
    const found = importable.get(name);
    if (found === undefined || declared.has(name)) continue;
    const list = byModule.get(found.from) ?? [];
    list.push(found.typeOnly ? `type ${name}` : name);
    byModule.set(found.from, list);
  }
  return [...byModule].map(
    ([from, names]) => `import { ${names.sort().join(', ')} } from '${from}';`,
  );
}

function checkPackage(dir) {
  const failures = [];
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const importable = importableNames(dir, manifest);
  const examples = [];
  for (const file of sourceFiles(join(dir, 'src'))) {
    for (const block of exampleBlocks(readFileSync(file, 'utf8'), file))
      examples.push({ file, ...block });
  }
  if (examples.length === 0) return failures;
  const work = join(dir, '.tsdoc-check');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  const generated = new Map();
  try {
    const preamble = join(preambles, `${relative(join(root, 'packages'), dir)}.d.ts`);
    if (existsSync(preamble))
      writeFileSync(join(work, 'preamble.d.ts'), readFileSync(preamble, 'utf8'));
    examples.forEach((example, i) => {
      const header = importsFor(example.code, importable);
      const name = `example-${i + 1}.ts`;
      generated.set(name, { ...example, offset: header.length });
      // `export {}` makes each block a module, so top-level await and repeated names are fine.
      writeFileSync(join(work, name), `${[...header, example.code].join('\n')}\nexport {};\n`);
    });
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        include: ['*.ts'],
        compilerOptions: { noEmit: true },
      }),
    );
    try {
      execFileSync(
        process.execPath,
        [tsc, '-p', join(work, 'tsconfig.json'), '--pretty', 'false'],
        {
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    } catch (error) {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
      let last;
      for (const line of output.split('\n')) {
        const match = /(?:^|[\\/])(example-\d+\.ts|preamble\.d\.ts)\((\d+),(\d+)\): (.*)$/.exec(
          line,
        );
        if (match) {
          const [, name, row, column, message] = match;
          const example = generated.get(name);
          const where = example
            ? `${relative(root, example.file)}:${example.line + Number(row) - 1 - example.offset}:${column}`
            : `${relative(root, preambles)}/${relative(join(root, 'packages'), dir)}.d.ts:${row}:${column}`;
          last = { where, message };
          failures.push(last);
        } else if (last !== undefined && /^\s+/.test(line) && line.trim() !== '') {
          last.message += ` ${line.trim()}`;
        } else if (line.trim() !== '' && !match) {
          failures.push({ where: relative(root, dir), message: line.trim() });
        }
      }
      if (failures.length === 0)
        failures.push({ where: relative(root, dir), message: output.trim() || String(error) });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.slice(2);
  let total = 0;
  const packagesDir = join(root, 'packages');
  for (const name of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, name);
    if (only.length > 0 && !only.includes(name)) continue;
    if (!existsSync(join(dir, 'tsconfig.json')) || !existsSync(join(dir, 'src'))) continue;
    const failures = checkPackage(dir);
    total += failures.length;
    for (const { where, message } of failures) process.stderr.write(`${where}: ${message}\n`);
  }
  if (total > 0) process.stderr.write(`${total} TSDoc example error(s)\n`);
  process.exit(total > 0 ? 1 : 0);
}
