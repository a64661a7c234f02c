/**
 * A small seeded PRNG (mulberry32) so every fuzz run can be replayed from its printed seed. Each
 * case gets its own stream, derived from (seed, index), so `--case N` rebuilds case N alone
 * without generating the N-1 before it.
 */

/** mulberry32: 32-bit state, good enough spread for picking mutations; not cryptographic. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** murmur3's finaliser: every input bit flips about half the output bits. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The stream of case `index` of run `seed`. The seed is mixed before the index joins it: XORing
 * them first made seed 2 a mere reordering of seed 1 (case i of one was case i^3 of the other).
 */
export function caseSeed(seed: number, index: number): number {
  return mix((mix(seed ^ 0x9e3779b9) + Math.imul(index, 0x9e3779b9)) >>> 0);
}

/** Helpers over a uniform source in [0, 1). */
export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}
