// Shared by the W2-W4 scripts: command-line sizes, medians, percentiles, forced GC, heap readings, a monotonic clock.
import { availableParallelism, cpus } from 'node:os';
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
 * Integer options given as `--name N` or `--name=N` (underscores allowed: `--events 200_000`), with defaults;
 * any other argument is a TypeError naming it.
 */
export function parseSizes<K extends string>(
  argv: string[],
  defaults: Record<K, number>,
): Record<K, number> {
  const result = { ...defaults };
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    const match = /^--([a-z]+)(?:=(.*))?$/.exec(arg);
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
