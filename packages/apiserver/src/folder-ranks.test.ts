// The folders of src/ are layers, as kube-apiserver's packages are: a folder imports only from folders of a
// lower rank (and from itself). Type-only imports count too: a type that names a folder above ties the
// layers together as surely as a call does, even though the build erases it. Files directly in src/
// (server.ts, index.ts) are the top. Tests and __fixtures__ may reach any folder (a wire test starts the
// whole server); what ships may not.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

/** The rank of each folder of src/, lowest first; README.md's Layout section shows the same table. */
export const folderRanks: Readonly<Record<string, number>> = {
  // The API types (Go structs as tables) and the served-resource table (kube's scheme and RESTMapper).
  types: 0,
  resources: 0,
  // Status errors, object helpers, selectors' grammar, Go-compatible formatting (k8s.io/apimachinery).
  apimachinery: 1,
  // The store and its watches, CRD schemas and CEL, protobuf bodies, a request's RequestInfo and target.
  storage: 2,
  schema: 2,
  protobuf: 2,
  request: 2,
  // The selection predicate and list options; patch formats and managed fields.
  selection: 3,
  patch: 3,
  // Body decoding; authentication; the fault injector's state.
  decoding: 4,
  authentication: 4,
  faults: 4,
  // RBAC (the authorizer, escalation, reviews); OpenAPI documents; server-side printing.
  rbac: 5,
  openapi: 5,
  printers: 5,
  // The generic registry: the Strategy interface, create/update/delete, watch planning, CRDs, dry runs.
  registry: 6,
  // Each kind's strategy; admission webhooks and conversion.
  strategies: 7,
  admission: 7,
  // Routing and one handler per verb (kube's endpoints/handlers).
  endpoints: 8,
  // The filter chain; kube-controller-manager's controllers in-process.
  filters: 9,
  controllers: 9,
  // The server and the public entries.
  testing: 10,
  '.': 10,
};

/** Relative specifiers `source` imports: static, type-only, re-exported, side-effect or dynamic. */
export function relativeImports(source: string): string[] {
  const pattern =
    /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/gm;
  return [...source.matchAll(pattern)].map((match) => (match[1] ?? match[2])!);
}

function sourceFiles(directory: string, out: string[] = []): string[] {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== '__fixtures__') sourceFiles(path, out);
    } else if (
      entry.endsWith('.ts') &&
      !entry.endsWith('.test.ts') &&
      !entry.endsWith('.test-d.ts')
    ) {
      out.push(path);
    }
  }
  return out;
}

/** The top folder of a path relative to src ('.' for a file directly in src). */
const folderOf = (path: string): string => {
  const parts = path.split(sep);
  return parts.length === 1 ? '.' : parts[0]!;
};

/** One message per folder without a rank and per import that does not point down, for the tree at `root`. */
export function rankProblems(root: string, ranks: Readonly<Record<string, number>>): string[] {
  const problems: string[] = [];
  const unranked = new Set<string>();
  for (const file of sourceFiles(root)) {
    const from = relative(root, file);
    const folder = folderOf(from);
    const rank = ranks[folder];
    if (rank === undefined) {
      if (!unranked.has(folder)) problems.push(`${folder}/: no rank`);
      unranked.add(folder);
      continue;
    }
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = relative(root, resolve(dirname(file), specifier));
      const targetFolder = folderOf(target);
      if (targetFolder === folder) continue;
      const targetRank = ranks[targetFolder];
      if (targetRank === undefined || targetRank >= rank) {
        problems.push(
          `${from.split(sep).join('/')} (${folder}, rank ${rank}) imports ${target.split(sep).join('/')} (${targetFolder}, rank ${targetRank ?? 'none'})`,
        );
      }
    }
  }
  return problems;
}

const roots: string[] = [];

/** A fixture src/ tree: `files` maps paths under it to contents. */
function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'lasso-folder-ranks-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('folder ranks', () => {
  const ranks = { low: 0, middle: 1, beside: 1, high: 2, '.': 3 };

  it('passes a tree whose imports all point down or stay in their folder', () => {
    const root = fixture({
      'low/a.ts': "import { b } from './b.ts';\n",
      'low/b.ts': 'export const b = 1;\n',
      'middle/m.ts': "import { b } from '../low/b.ts';\nimport type { A } from '../low/a.ts';\n",
      'high/h.ts': "export { m } from '../middle/m.ts';\nconst x = await import('../low/a.ts');\n",
      'index.ts': "import { h } from './high/h.ts';\n",
      'middle/m.test.ts': "import { h } from '../high/h.ts';\n",
      'middle/__fixtures__/f.ts': "import { h } from '../../high/h.ts';\n",
    });
    expect(rankProblems(root, ranks)).toEqual([]);
  });

  it.for([
    { name: 'a runtime import', source: "import { h } from '../high/h.ts';" },
    { name: 'a type-only import', source: "import type { H } from '../high/h.ts';" },
    { name: 'a re-export', source: "export { h } from '../high/h.ts';" },
    { name: 'a dynamic import', source: "const h = await import('../high/h.ts');" },
    { name: 'a multi-line import', source: "import {\n  h,\n  type H,\n} from '../high/h.ts';" },
  ])('fails on an upward import ($name)', ({ source }) => {
    const root = fixture({ 'middle/m.ts': source, 'high/h.ts': 'export const h = 1;\n' });
    expect(rankProblems(root, ranks)).toEqual([
      'middle/m.ts (middle, rank 1) imports high/h.ts (high, rank 2)',
    ]);
  });

  it('fails on an import beside (same rank, another folder), into src/ itself, and on an unranked folder', () => {
    const root = fixture({
      'middle/m.ts': "import { b } from '../beside/b.ts';\nimport { s } from '../server.ts';\n",
      'beside/b.ts': 'export const b = 1;\n',
      'server.ts': 'export const s = 1;\n',
      'other/o.ts': "import { b } from '../low/b.ts';\n",
    });
    expect(rankProblems(root, ranks).sort()).toEqual([
      'middle/m.ts (middle, rank 1) imports beside/b.ts (beside, rank 1)',
      'middle/m.ts (middle, rank 1) imports server.ts (., rank 3)',
      'other/: no rank',
    ]);
  });

  it('holds in src: no folder imports a folder at or above its rank, not even a type', () => {
    const root = fileURLToPath(new URL('./', import.meta.url));
    expect(rankProblems(root, folderRanks)).toEqual([]);
    // Every folder of src/ is ranked, and every rank names a folder that exists.
    const folders = readdirSync(root).filter((entry) => statSync(join(root, entry)).isDirectory());
    expect([...folders, '.'].sort()).toEqual(Object.keys(folderRanks).sort());
  });
});
