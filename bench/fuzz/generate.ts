/**
 * The fuzz corpus: case N of seed S is a base Database (bases.ts) with 1-3 mutations applied,
 * from its own PRNG stream (prng.ts), so it can be rebuilt alone with `--seed S --case N`.
 * Every case carries what was changed, for the report.
 */
import { Base, BASES, JsonObject } from "./bases";
import { DOMAIN_MUTATIONS } from "./mutations/domain";
import { GENERIC } from "./mutations/generic";
import { PARAMETER_MUTATIONS } from "./mutations/parameters";
import { SCHEDULING_MUTATIONS } from "./mutations/scheduling";
import type { Mutation } from "./mutations/types";
import { caseSeed, Rng } from "./prng";

export interface FuzzCase {
  seed: number;
  index: number;
  base: string;
  /** What each applied mutation changed, in order. */
  changes: string[];
  object: JsonObject;
}

const MUTATIONS: readonly Mutation[] = [
  ...GENERIC,
  ...PARAMETER_MUTATIONS,
  ...SCHEDULING_MUTATIONS,
  ...DOMAIN_MUTATIONS,
];
const TOTAL_WEIGHT = MUTATIONS.reduce((sum, m) => sum + m.weight, 0);

function pickMutation(rng: Rng): Mutation {
  let roll = rng.float() * TOTAL_WEIGHT;
  for (const m of MUTATIONS) {
    roll -= m.weight;
    if (roll < 0) return m;
  }
  return MUTATIONS[MUTATIONS.length - 1];
}

/** A deep copy through JSON: bases are plain JSON, and each case must own its document. */
const copy = (base: Base): JsonObject => JSON.parse(JSON.stringify(base.object)) as JsonObject;

/** Case `index` of the run seeded `seed`. Pure: the same arguments give the same case. */
export function generateCase(seed: number, index: number): FuzzCase {
  const rng = new Rng(caseSeed(seed, index));
  const base = rng.pick(BASES);
  const object = copy(base);
  const changes: string[] = [];
  const wanted = rng.int(1, 3);
  // A mutation that does not apply (nothing to remove) is replaced; bounded so it always ends.
  for (let tries = 0; changes.length < wanted && tries < 20; tries++) {
    const mutation = pickMutation(rng);
    const change = mutation.apply(rng, object);
    if (change !== undefined) changes.push(`${mutation.name}: ${change}`);
  }
  return { seed, index, base: base.name, changes, object };
}

/** Cases [from, from + count) of `seed`, lazily (a 10,000-case run never holds them all). */
export function* generateCases(seed: number, count: number, from = 0): Generator<FuzzCase> {
  for (let i = from; i < from + count; i++) yield generateCase(seed, i);
}
