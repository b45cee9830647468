// No runtime import cycle inside the server: a module cycle lets one module read another's exports before
// that module has run (the strategy table once had to be built lazily for this reason). Across folders the
// folder ranks (folder-ranks.test.ts) rule out cycles, types included; this also covers the files of one
// folder, where type-only imports (erased at build time) may point both ways.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sourceRoot = fileURLToPath(new URL('../src/', import.meta.url));

/** Relative specifiers a source imports at runtime (`import type` and `export type` excluded). */
export function runtimeImports(source: string): string[] {
  const pattern =
    /(?:^|[\s;])(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/gm;
  const specifiers: string[] = [];
  for (const match of source.matchAll(pattern)) {
    if (match[2] !== undefined) continue;
    const specifier = match[3] ?? match[4];
    if (specifier !== undefined) specifiers.push(specifier);
  }
  return specifiers;
}

/** Every cycle of `graph` (module -> modules it imports), each as the path that closes it. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

function sourceFiles(directory: string, out: string[] = []): string[] {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== '__fixtures__') sourceFiles(path, out);
    } else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

describe('import graph', () => {
  it('finds a cycle when there is one, and none in a tree', () => {
    const cyclic = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
    ]);
    expect(findCycles(cyclic)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      findCycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
    expect(
      runtimeImports(
        "import { x } from './x.ts';\nimport type { Y } from './y.ts';\nexport { z } from '../z.ts';\nexport type { W } from './w.ts';\nimport 'node:fs';",
      ),
    ).toEqual(['./x.ts', '../z.ts']);
  });

  it('has no runtime import cycle in src', () => {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(sourceRoot)) {
      const imports = runtimeImports(readFileSync(file, 'utf8')).map((specifier) =>
        relative(sourceRoot, resolve(dirname(file), specifier)),
      );
      graph.set(relative(sourceRoot, file), imports);
    }
    expect(graph.size).toBeGreaterThan(100);
    expect(findCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
