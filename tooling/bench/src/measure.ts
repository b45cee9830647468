// Shared by the bench scripts: command-line sizes, medians, percentiles, forced GC, heap readings, a monotonic
// clock, the machine and load notes, and the results file every workload appends its summary to (results/<YYYY-MM-DD>.json).
import { type ExecFileSyncOptionsWithStringEncoding, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Nearest-rank percentile (`p` in 0..1) of `values`. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Array.from(values).sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

/** Now in ms of process.hrtime: CLOCK_MONOTONIC, one clock for every process of the machine (W4's processes). */
export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * Integer options given as `--name N` or `--name=N` (underscores allowed: `--events 200_000`; a name may have
 * hyphens: `--data-bytes`), with defaults; any other argument is a TypeError naming it.
 */
export function parseSizes<K extends string>(
  argv: string[],
  defaults: Record<K, number>,
): Record<K, number> {
  const result = { ...defaults };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    const match = /^--([a-z]+(?:-[a-z]+)*)(?:=(.*))?$/.exec(arg);
    const name = match?.[1];
    if (match === null || name === undefined || !Object.hasOwn(defaults, name)) {
      throw new TypeError(
        `unknown argument ${arg}; options: ${Object.keys(defaults)
          .map((key) => `--${key} N`)
          .join(', ')}`,
      );
    }
    const text = match[2] ?? argv[++index];
    const value = Number((text ?? '').replaceAll('_', ''));
    if (!Number.isInteger(value) || value < 1) {
      throw new RangeError(`--${name} must be a positive integer, got ${String(text)}`);
    }
    result[name as K] = value;
  }
  return result;
}

/** A full collection: `global.gc` when node runs with `--expose-gc`, else one obtained through V8 flags. */
export const forceGc: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** `heapUsed` in bytes after two full collections (the second clears what the first's finalizers freed). */
export function settledHeapUsed(): number {
  forceGc();
  forceGc();
  return process.memoryUsage().heapUsed;
}

/** `bytes` as MiB with one decimal. */
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A machine note for the header of each benchmark. */
export function machineNote(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `node ${process.version}, ${availableParallelism()} CPUs (${model})`;
}

/** The load averages (1, 5, 15 minutes) with two decimals, for the lines a run prints: `0.52 0.61 0.70`. */
export const loadNote = (): string =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(' ');

/** What a workload reports at its end: per-contender medians, the ratios it prints, its sizes and goals. */
export interface BenchSummary {
  /** Sizes of the run (the parsed flags). */
  sizes?: Record<string, number>;
  /** Per contender, its medians by measure (name the unit: `eventsPerSecond`, `syncMs`, `bytesPerObject`...). */
  contenders: Record<string, Record<string, number>>;
  /** The ratios the workload prints, by name (`"client-node 2.0 / lasso events/s"`...). */
  ratios?: Record<string, number>;
  /** Each goal and whether this run met it (`"bytes/object <= 1,500": true`). */
  goals?: Record<string, boolean>;
  /** Anything else worth keeping (the server used, a caveat). */
  notes?: string;
}

/** One entry of a day's results file: the summary with where and when it was measured. */
export interface BenchRecord extends BenchSummary {
  /** ISO time at the end of the run. */
  at: string;
  machine: { cpus: number; model: string; memoryMiB: number };
  node: string;
  /** `os.loadavg()` (1, 5, 15 minutes) at the end of the run: above ~4 on 2 cores, rates are noise. */
  loadAverage: number[];
  /** `git rev-parse HEAD`, with `+dirty` when tracked files differ from it; `unknown` outside git. */
  commit: string;
}

/** A day's results file: workload name -> its runs, oldest first. */
export type BenchResultsFile = Record<string, BenchRecord[]>;

/** tooling/bench/results, from src (tests) as from dist (the scripts). */
export const defaultResultsDir = fileURLToPath(new URL('../results/', import.meta.url));

function gitCommit(cwd: string): string {
  try {
    const options: ExecFileSyncOptionsWithStringEncoding = {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    };
    const head = execFileSync('git', ['rev-parse', 'HEAD'], options).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], options);
    return dirty.trim() === '' ? head : `${head}+dirty`;
  } catch {
    return 'unknown';
  }
}

/**
 * Append `summary` as the latest run of `workload` to `<dir>/<YYYY-MM-DD>.json` (UTC date of `now`), keeping
 * every earlier entry of that file (other workloads and earlier runs); written to a temp file then renamed, so
 * a reader never sees half a file. Returns the file's path. A results file that is not valid JSON is an error
 * (never overwritten).
 */
export function recordResults(
  workload: string,
  summary: BenchSummary,
  options: { dir?: string; now?: Date } = {},
): string {
  const dir = options.dir ?? defaultResultsDir;
  const now = options.now ?? new Date();
  const path = join(dir, `${now.toISOString().slice(0, 10)}.json`);
  mkdirSync(dir, { recursive: true });
  let file: BenchResultsFile = {};
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as BenchResultsFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`recordResults: ${path} is not a results file`, { cause: error });
    }
  }
  const record: BenchRecord = {
    at: now.toISOString(),
    machine: {
      cpus: availableParallelism(),
      model: cpus()[0]?.model.trim() ?? 'unknown CPU',
      memoryMiB: Math.round(totalmem() / 1024 / 1024),
    },
    node: process.version,
    loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
    commit: gitCommit(dir),
    ...summary,
  };
  file[workload] = [...(file[workload] ?? []), record];
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(temp, path);
  console.log(`results: ${workload} appended to ${path}`);
  return path;
}
