// Every `logger` option of the packages defaults to core's defaultLogger, which prints warnings and errors:
// a component that falls back to the silent noopLogger hides failures nobody passed a logger to see.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('logger defaults', () => {
  it('fall back to defaultLogger, never noopLogger, in every package', () => {
    const offenders = readdirSync(join(root, 'packages'))
      .flatMap((name) => {
        const src = join(root, 'packages', name, 'src');
        try {
          return sourceFiles(src);
        } catch {
          return [];
        }
      })
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) =>
            /\?\?\s*noopLogger\b|=\s*noopLogger\s*[,)]/.test(line)
              ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`]
              : [],
          ),
      );
    expect(offenders).toEqual([]);
  });
});
