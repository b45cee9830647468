// One concept per file, < ~500 lines (the house style): a library source file over 600 lines must say at its top,
// in a `// size: <reason>` line, why it is one concept (generated types, one state machine) rather than two.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const limit = 600;
// The reason must stand among the first lines, where a reader opening the file sees it.
const headerLines = 10;

function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['__fixtures__', '__snapshots__', 'node_modules'].includes(entry.name))
        files.push(...sources(path));
    } else if (
      /\.ts$/.test(entry.name) &&
      !/\.(test|test-d|bench)\.ts$|\.d\.ts$/.test(entry.name)
    ) {
      files.push(path);
    }
  }
  return files;
}

/** `path (lines)` of each file over the limit without a `// size:` reason at its top. */
function oversized(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const lines = text.split('\n');
    const count = text.endsWith('\n') ? lines.length - 1 : lines.length;
    if (count <= limit) continue;
    const reason = lines.slice(0, headerLines).some((line) => /^\/\/ size: \S/.test(line));
    if (!reason) found.push(`${path} (${count} lines)`);
  }
  return found;
}

describe('source file size', () => {
  it(`flags a file over ${limit} lines only when it has no // size: reason at its top`, () => {
    const long = (head: string) => `${head}\n${'x;\n'.repeat(limit)}`;
    expect(
      oversized([
        { path: 'a.ts', text: long('// A thing.') },
        {
          path: 'b.ts',
          text: long('// B.\n// size: generated from the OpenAPI schema, one kind per type'),
        },
        { path: 'c.ts', text: 'x;\n'.repeat(limit) },
      ]),
    ).toEqual([`a.ts (${limit + 1} lines)`]);
  });

  it(`no library source file is over ${limit} lines without a reason`, () => {
    const packages = join(root, 'packages');
    const files = readdirSync(packages).flatMap((name) => {
      try {
        return sources(join(packages, name, 'src'));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(100);
    const found = oversized(
      files.map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') })),
    );
    expect(
      found,
      'split the file by concept, or state why it is one in a `// size:` line at its top',
    ).toEqual([]);
  });
});
