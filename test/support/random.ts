/**
 * A seeded random source for the fuzz and abuse suites: mulberry32, small, fast, and the same sequence
 * for the same seed on every machine, so a failure's printed seed replays it (`FUZZ_SEED`).
 */
export interface SeededRandom {
  /** A number in [0, 1). */
  (): number;
  pick<T>(items: readonly T[]): T;
  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number;
}

export function seededRandom(seed: number): SeededRandom {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Object.assign(next, {
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    int: (min: number, max: number): number => min + Math.floor(next() * (max - min + 1)),
  });
}

/** The seed a fuzz suite runs with: `FUZZ_SEED` when set, else the suite's own. */
export const fuzzSeed = (fallback: number): number => Number(process.env["FUZZ_SEED"] ?? fallback);
