// Command-line options of `pnpm test:soak`.
import { freshSeed } from './random.ts';

/** The soak's settings (see README.md). */
export interface SoakOptions {
  /** Seconds of faults and writes. */
  durationS: number;
  seed: number;
  writers: number;
  /** Writes per second, all writers together. */
  rate: number;
  namespaces: number;
  /** Objects per kind per namespace a writer keeps at most. */
  cap: number;
  /** After the faults stop, every store must equal the server within this (s). */
  convergeWithinS: number;
  /** Give up waiting for convergence after this (s). */
  quietTimeoutS: number;
  /** Heap growth allowed between sync and the end, after GC (MiB). */
  heapBoundMiB: number;
  /** Run the leader-election soak too. */
  leader: boolean;
  /** Run the informer soak. */
  informers: boolean;
  /**
   * Seconds the API server refuses connections in the outage soak (0: no outage soak). Default 120 for runs of
   * 180 s or more, else a sixth of `durationS` (5 s for the CI's 30 s run).
   */
  outageS: number;
  /** Run the sharded soak (issue 32) after the others. */
  sharded: boolean;
  /** Replica processes the sharded soak starts with (it keeps 3..5 running). */
  replicas: number;
  verbose: boolean;
}

const usage = `usage: soak [--duration S] [--seed N] [--writers N] [--rate N] [--namespaces N] [--cap N]
            [--converge-within S] [--quiet-timeout S] [--heap-bound MiB] [--outage S] [--no-leader] [--leader-only]
            [--sharded] [--sharded-only] [--replicas N] [--verbose]
The seed also comes from LASSO_SOAK_SEED.`;

/** Parse `argv` (a bare `--` from `pnpm test:soak -- ...` is skipped); throws a RangeError with the usage. */
export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = {}): SoakOptions {
  const envSeed = env.LASSO_SOAK_SEED;
  const options: SoakOptions = {
    durationS: 180,
    seed: envSeed !== undefined && envSeed !== '' ? Number(envSeed) : freshSeed(),
    writers: 2,
    rate: 100,
    namespaces: 5,
    cap: 20,
    convergeWithinS: 5,
    quietTimeoutS: 90,
    heapBoundMiB: 16,
    leader: true,
    informers: true,
    outageS: -1,
    sharded: false,
    replicas: 3,
    verbose: false,
  };
  const numbers: Record<string, keyof SoakOptions> = {
    '--duration': 'durationS',
    '--seed': 'seed',
    '--writers': 'writers',
    '--rate': 'rate',
    '--namespaces': 'namespaces',
    '--cap': 'cap',
    '--converge-within': 'convergeWithinS',
    '--quiet-timeout': 'quietTimeoutS',
    '--heap-bound': 'heapBoundMiB',
    '--outage': 'outageS',
    '--replicas': 'replicas',
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') continue;
    if (arg === '--no-leader') options.leader = false;
    else if (arg === '--leader-only') options.informers = false;
    else if (arg === '--sharded') options.sharded = true;
    else if (arg === '--sharded-only') {
      options.sharded = true;
      options.informers = false;
      options.leader = false;
    } else if (arg === '--verbose') options.verbose = true;
    else if (arg === '--help') throw new RangeError(usage);
    else {
      const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
      const key = numbers[flag];
      if (key === undefined) throw new RangeError(`unknown option ${arg}\n${usage}`);
      const text = inline ?? argv[++i];
      const value = Number(text);
      if (text === undefined || text === '' || !Number.isFinite(value) || value < 0) {
        throw new RangeError(`${flag} needs a number >= 0, got ${String(text)}\n${usage}`);
      }
      (options as unknown as Record<string, number>)[key] = value;
    }
  }
  if (options.outageS < 0) {
    options.outageS = options.durationS >= 180 ? 120 : Math.round(options.durationS / 6);
  }
  if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffff_ffff) {
    throw new RangeError(`--seed must be an integer in [0, 2^32), got ${options.seed}`);
  }
  if (options.writers < 1 || options.namespaces < 1 || options.rate <= 0 || options.cap < 1) {
    throw new RangeError(`--writers, --namespaces, --rate and --cap must be > 0\n${usage}`);
  }
  if (!Number.isInteger(options.replicas) || options.replicas < 3 || options.replicas > 5) {
    throw new RangeError(`--replicas must be 3, 4 or 5, got ${options.replicas}\n${usage}`);
  }
  return options;
}
