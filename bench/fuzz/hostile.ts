/**
 * The timed hostile case (issue 28): one Database made to be slow to judge, sent while the bases
 * are created alongside. Its parameters are 200 case variants of numeric parameters (names are
 * case-insensitive, so each is a duplicate of the first), each value 4,095 digits and a '!': the
 * number pattern once backtracked quadratically on each (about 14 s per request, past the
 * apiserver's 10 s webhook timeout, and with `failurePolicy: Fail` the ordinary creates sent
 * beside it failed). Prints how long each request took and how it ended: the hostile one must be
 * refused, the ordinary ones admitted, none failed.
 */
import type { FuzzCase } from "./generate";
import { BASES } from "./bases";
import type { Outcome } from "./outcome";
import type { Sender } from "./senders";

const VARIANTS = 200;
const DIGITS = 4095;
const NUMERIC = ["work_mem", "maintenance_work_mem"];

/** The name with the letters of `mask`'s set bits in upper case. */
function caseVariant(name: string, mask: number): string {
  let bit = 0;
  return [...name]
    .map(ch => {
      if (!/[a-z]/.test(ch)) return ch;
      return (mask >> bit++) & 1 ? ch.toUpperCase() : ch;
    })
    .join("");
}

/** Up to `count` distinct case variants of the names, the first of each name as written. */
export function caseVariants(names: string[], count: number): string[] {
  const out: string[] = [];
  for (const name of names) {
    const letters = [...name].filter(ch => /[a-z]/.test(ch)).length;
    for (let mask = 0; mask < 2 ** letters && out.length < count; mask++)
      out.push(caseVariant(name, mask));
  }
  return out;
}

export function hostileCase(): FuzzCase {
  const value = `${"1".repeat(DIGITS)}!`;
  const parameters = Object.fromEntries(caseVariants(NUMERIC, VARIANTS).map(n => [n, value]));
  return {
    seed: 0,
    index: -100,
    base: "hostile",
    changes: [`${VARIANTS} case variants of ${NUMERIC.join(", ")}, each ${DIGITS} digits and '!'`],
    object: {
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Database",
      metadata: { name: "hostile" },
      spec: { version: "16", storage: { size: "10Gi" }, postgresql: { parameters } },
    },
  };
}

const shown = (o: Outcome): string =>
  `${o.kind} in ${o.ms.toFixed(0)} ms${o.kind === "admitted" ? "" : `: ${(o.kind === "failure" ? `${o.what}: ` : "") + o.message.slice(0, 160)}`}`;

/** Sends the hostile case and every base at once; prints and returns what happened. */
export async function runHostile(mode: string, send: Sender): Promise<Outcome[]> {
  const ordinary: FuzzCase[] = BASES.map((b, i) => ({
    seed: 0,
    index: -200 - i,
    base: b.name,
    changes: [],
    object: b.object,
  }));
  const [hostile, ...others] = await Promise.all([hostileCase(), ...ordinary].map(send));
  const admitted = others.filter(o => o.kind === "admitted").length;
  const slowest = Math.max(...others.map(o => o.ms));
  console.log(`${mode}: hostile case ${shown(hostile)}`);
  console.log(
    `${mode}: ${others.length} ordinary creates beside it: ${admitted} admitted, slowest ${slowest.toFixed(0)} ms`,
  );
  for (const o of others.filter(x => x.kind !== "admitted")) console.log(`  ${shown(o)}`);
  return [hostile, ...others];
}
