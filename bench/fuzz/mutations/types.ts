import type { JsonObject } from "../bases";
import type { Rng } from "../prng";

/**
 * One kind of change. `apply` edits `doc` in place and says what it did (for the report), or
 * returns undefined when it does not apply to this document (the generator picks another).
 */
export interface Mutation {
  name: string;
  /** Relative frequency. */
  weight: number;
  apply: (rng: Rng, doc: JsonObject) => string | undefined;
}
