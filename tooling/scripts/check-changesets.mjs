#!/usr/bin/env node
// Every changeset must parse as changesets reads it: a broken front matter only fails at release time,
// long after the change that broke it (a formatter once turned one into a Markdown heading).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.changeset');
const known = new Set(
  readdirSync(join(root, 'packages')).map(
    (name) => JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')).name,
  ),
);

const problems = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
  const text = readFileSync(join(dir, file), 'utf8');
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(text);
  if (!match) {
    problems.push(
      `${file}: no front matter (expected '---', package bumps, '---', then the summary)`,
    );
    continue;
  }
  const lines = match[1].split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) problems.push(`${file}: front matter names no package`);
  for (const line of lines) {
    const bump = /^['"]?(@[\w.-]+\/[\w.-]+)['"]?:\s*(major|minor|patch)\s*$/.exec(line.trim());
    if (!bump)
      problems.push(`${file}: cannot read '${line.trim()}' as "'<package>': major|minor|patch"`);
    else if (!known.has(bump[1])) problems.push(`${file}: unknown package ${bump[1]}`);
  }
  if (match[2].trim() === '') problems.push(`${file}: empty summary`);
}

if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`changeset: ${p}\n`);
  process.exit(1);
}
