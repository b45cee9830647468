// Seeded randomness for the soak: every random choice (faults, their timing, writes) comes from a seed printed at
// the start, so a failing run can be replayed with `--seed`.

/** A source of numbers in [0, 1), reproducible from its seed (mulberry32). */
export interface Random {
  /** The next number in [0, 1). */
  (): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
}

/** A {@link Random} seeded with a 32-bit integer. */
export function seededRandom(seed: number): Random {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw new RangeError(`seed must be an integer in [0, 2^32), got ${seed}`);
  }
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const random = next as Random;
  random.int = (min, max) => min + Math.floor(next() * (max - min + 1));
  random.pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick from an empty array');
    return items[Math.floor(next() * items.length)] as T;
  };
  return random;
}

/** A fresh seed from `Math.random` (the one nondeterministic draw, printed so it can be replayed). */
export function freshSeed(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}
