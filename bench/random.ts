/** Seeded randomness for workloads: same seed, same rules and requests, on any machine. */

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  /** `k` distinct items (k <= items.length). */
  sample<T>(items: readonly T[], k: number): T[];
  chance(p: number): boolean;
}

/** mulberry32, seeded. */
export function createRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    sample(items, k) {
      const copy = [...items];
      for (let i = 0; i < k; i++) {
        const j = i + Math.floor(next() * (copy.length - i));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy.slice(0, k);
    },
    chance: (p) => next() < p,
  };
}
