#!/usr/bin/env node
// Fails on an optional property of an exported `*Options` interface or type in packages/*/src (tests excepted)
// whose type does not include `| undefined`. Under `exactOptionalPropertyTypes` a property typed `?: T` cannot
// be given `undefined`, so a caller passing an option on (`{ timeoutMs: options.timeoutMs }`) needs a
// conditional spread; `?: T | undefined` takes both an absent property and `undefined`. Inline object types
// nested in such a property (`tls?: { ca?: string | undefined } | undefined`) are held to the same rule.
// Prints every offender as `file:line: Name.property` (the path to a nested one is dotted).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..', '..');

const isTestFile = (name) => /\.(test|test-d|spec|bench)\.ts$/.test(name);

/** Every non-test, non-declaration .ts file under `dir` (fixtures of tests excepted). */
function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['__snapshots__', '__tests__', '__fixtures__'].includes(entry.name))
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

const isExported = (node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** True when the type node is a union with an `undefined` member (parentheses looked through). */
function admitsUndefined(type) {
  let node = type;
  while (ts.isParenthesizedTypeNode(node)) node = node.type;
  if (node.kind === ts.SyntaxKind.UndefinedKeyword) return true;
  if (ts.isLiteralTypeNode(node) && node.literal.kind === ts.SyntaxKind.UndefinedKeyword)
    return true;
  return ts.isUnionTypeNode(node) && node.types.some(admitsUndefined);
}

/** The inline object types directly in `type` (through unions, intersections, parentheses and arrays). */
function typeLiteralsIn(type) {
  if (ts.isTypeLiteralNode(type)) return [type];
  if (ts.isParenthesizedTypeNode(type)) return typeLiteralsIn(type.type);
  if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type))
    return type.types.flatMap(typeLiteralsIn);
  if (ts.isArrayTypeNode(type)) return typeLiteralsIn(type.elementType);
  if (ts.isTypeOperatorNode(type)) return typeLiteralsIn(type.type);
  return [];
}

/**
 * The optional properties without `| undefined` of the exported `*Options` interfaces and type aliases of a
 * module's text: `{ line, name }` with `name` as `Options.property` (dotted through nested object types).
 */
export function optionalOffenders(text, fileName = 'file.ts') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const offenders = [];
  const checkMembers = (members, path) => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) || member.name === undefined) continue;
      const name = `${path}.${member.name.getText(source)}`;
      if (member.type === undefined) continue;
      if (member.questionToken !== undefined && !admitsUndefined(member.type)) {
        const { line } = source.getLineAndCharacterOfPosition(member.getStart(source));
        offenders.push({ line: line + 1, name, type: member.type });
      }
      for (const literal of typeLiteralsIn(member.type)) checkMembers(literal.members, name);
    }
  };
  for (const statement of source.statements) {
    if (!isExported(statement) || !statement.name || !/Options$/.test(statement.name.text))
      continue;
    if (ts.isInterfaceDeclaration(statement)) checkMembers(statement.members, statement.name.text);
    else if (ts.isTypeAliasDeclaration(statement)) {
      for (const literal of typeLiteralsIn(statement.type))
        checkMembers(literal.members, statement.name.text);
    }
  }
  return offenders;
}

/** `text` with `| undefined` added to the type of each offender (a function or conditional type parenthesized). */
export function fixOptionalOptions(text, fileName = 'file.ts') {
  let fixed = text;
  for (;;) {
    const offenders = optionalOffenders(fixed, fileName);
    if (offenders.length === 0) return fixed;
    // Outermost first and one pass at a time: a nested offender's offsets move when its parent is fixed.
    const outer = offenders.filter(
      ({ type }) =>
        !offenders.some((o) => o.type !== type && o.type.pos <= type.pos && type.end <= o.type.end),
    );
    const before = fixed;
    for (const { type } of outer.sort((a, b) => b.type.pos - a.type.pos)) {
      const start = type.getStart(type.getSourceFile());
      const typeText = before.slice(start, type.end);
      const bare =
        ts.isFunctionTypeNode(type) ||
        ts.isConstructorTypeNode(type) ||
        ts.isConditionalTypeNode(type)
          ? `(${typeText})`
          : typeText;
      fixed = `${fixed.slice(0, start)}${bare} | undefined${fixed.slice(type.end)}`;
    }
  }
}

/** Offenders of every package under `packagesDir`, as `path:line: name` relative to `base`. */
export function checkPackages(packagesDir, base = root) {
  const lines = [];
  for (const name of readdirSync(packagesDir).sort()) {
    const src = join(packagesDir, name, 'src');
    if (!existsSync(src)) continue;
    for (const file of sourceFiles(src).sort()) {
      for (const { line, name: property } of optionalOffenders(readFileSync(file, 'utf8'), file))
        lines.push(`${relative(base, file)}:${line}: ${property}`);
    }
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--fix') {
  // `--fix file...`: rewrites the named files in place (one at a time, so a shared tree is touched file by file).
  for (const file of process.argv.slice(3)) {
    const text = readFileSync(file, 'utf8');
    const fixed = fixOptionalOptions(text, file);
    if (fixed !== text) writeFileSync(file, fixed);
  }
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? join(root, 'packages');
  const offenders = checkPackages(dir, process.argv[2] ? dir : root);
  for (const line of offenders) process.stderr.write(`${line}\n`);
  if (offenders.length > 0) {
    process.stderr.write(
      `${offenders.length} optional option(s) without \`| undefined\`: type them \`?: T | undefined\` (exactOptionalPropertyTypes)\n`,
    );
    process.exit(1);
  }
}
