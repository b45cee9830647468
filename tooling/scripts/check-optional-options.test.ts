// The options check on fixture modules and a fixture workspace: it flags `?: T` on exported `*Options` (nested
// inline object types too) and passes `?: T | undefined`, required properties and unexported or other types.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import { checkPackages, fixOptionalOptions, optionalOffenders } from './check-optional-options.mjs';

const names = (text: string): string[] =>
  optionalOffenders(text).map((o: { line: number; name: string }) => `${o.line}:${o.name}`);

describe('optionalOffenders', () => {
  it('flags an optional property of an exported *Options interface typed without undefined', () => {
    const text = [
      'export interface WatchOptions {',
      '  signal?: AbortSignal;',
      '  timeoutMs?: number | undefined;',
      '  name: string;',
      '  onError?: ((error: unknown) => void) | undefined;',
      "  mode?: 'a' | 'b';",
      '}',
    ].join('\n');
    expect(names(text)).toEqual(['2:WatchOptions.signal', '6:WatchOptions.mode']);
  });

  it('checks exported *Options type aliases and the inline object types nested in an option', () => {
    const text = [
      'export type ListOptions = Base & {',
      '  limit?: number;',
      '  tls?: { ca?: string; cert?: string | undefined } | undefined;',
      '};',
    ].join('\n');
    expect(names(text)).toEqual(['2:ListOptions.limit', '3:ListOptions.tls.ca']);
  });

  it('accepts undefined in parentheses and in any place of the union', () => {
    expect(names('export interface AOptions { a?: (undefined | string); b?: undefined }')).toEqual(
      [],
    );
  });

  it('leaves unexported types, types not named *Options, and method signatures alone', () => {
    const text = [
      'interface HiddenOptions { a?: number }',
      'export interface Config { a?: number }',
      'export interface HookOptions { onStop?(): void }',
    ].join('\n');
    expect(names(text)).toEqual([]);
  });
});

describe('fixOptionalOptions', () => {
  it('adds | undefined, parenthesizing function types, outer and nested alike', () => {
    const text = [
      'export interface AOptions {',
      '  a?: number;',
      '  b?: (x: number) => void;',
      "  c?: 'x' | 'y';",
      '  d?: { e?: string };',
      '  f?: boolean | undefined;',
      '}',
    ].join('\n');
    const fixed = fixOptionalOptions(text);
    expect(fixed).toBe(
      [
        'export interface AOptions {',
        '  a?: number | undefined;',
        '  b?: ((x: number) => void) | undefined;',
        "  c?: 'x' | 'y' | undefined;",
        '  d?: { e?: string | undefined } | undefined;',
        '  f?: boolean | undefined;',
        '}',
      ].join('\n'),
    );
    expect(optionalOffenders(fixed)).toEqual([]);
  });
});

describe('check-optional-options.mjs', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  const tree = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(tmpdir(), 'lasso-options-'));
    roots.push(root);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    return root;
  };
  const script = join(import.meta.dirname, 'check-optional-options.mjs');
  // A node process loading the TypeScript compiler takes seconds on a loaded machine.
  const spawnTimeoutMs = 60_000;

  it('names the file, line and property; test files and fixtures are not checked', () => {
    const root = tree({
      'core/src/clock.ts': 'export interface SleepOptions {\n  signal?: AbortSignal;\n}\n',
      'core/src/clock.test.ts': 'export interface TestOptions { a?: number }\n',
      'core/src/__fixtures__/fake.ts': 'export interface FakeOptions { a?: number }\n',
    });
    expect(checkPackages(root, root)).toEqual(['core/src/clock.ts:2: SleepOptions.signal']);
  });

  it(
    'exits 1 on an offender and 0 on a tree whose options admit undefined',
    () => {
      const bad = tree({ 'core/src/a.ts': 'export interface AOptions { a?: number }\n' });
      const failed = spawnSync(process.execPath, [script, bad], { encoding: 'utf8' });
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain('core/src/a.ts:1: AOptions.a');
      const good = tree({
        'core/src/a.ts': 'export interface AOptions { a?: number | undefined }\n',
      });
      const passed = spawnSync(process.execPath, [script, good], { encoding: 'utf8' });
      expect(passed.stderr).toBe('');
      expect(passed.status).toBe(0);
    },
    spawnTimeoutMs,
  );
});
