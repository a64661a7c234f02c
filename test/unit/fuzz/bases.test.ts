/**
 * The fuzz corpus's starting points and its generator: every base Database is judged valid
 * (in the namespace the runner prepares: its Secrets, no other Database), and a case is rebuilt
 * identically from its seed and index alone (what `--seed S --case N` relies on).
 */
import { BASES } from "../../../bench/fuzz/bases";
import { generateCase } from "../../../bench/fuzz/generate";
import { judgeDatabase } from "../../../bench/fuzz/oracle/database";
import { FUZZ_SECRETS } from "../../../bench/fuzz/setup";

const cluster = {
  namespace: "fuzz",
  secrets: new Set(FUZZ_SECRETS),
  databases: new Map<string, { uid: string; version: string }>(),
};

it.each(BASES.map(b => [b.name, b] as const))("judges base %s valid", (_name, base) => {
  const j = judgeDatabase(
    {
      ...base.object,
      metadata: { name: "x", namespace: "fuzz", ...(base.object.metadata as object) },
    },
    { cluster },
  );
  expect({ findings: j.findings, unknowns: j.unknowns }).toEqual({ findings: [], unknowns: [] });
});

it("rebuilds a case from its seed and index alone", () => {
  const a = JSON.stringify(generateCase(42, 1234));
  generateCase(42, 1233);
  expect(JSON.stringify(generateCase(42, 1234))).toBe(a);
  expect(JSON.stringify(generateCase(43, 1234))).not.toBe(a);
});

it("mutates every case (1-3 changes)", () => {
  for (let i = 0; i < 500; i++) {
    const c = generateCase(7, i);
    expect(c.changes.length).toBeGreaterThanOrEqual(1);
    expect(c.changes.length).toBeLessThanOrEqual(3);
  }
});

it("gives different seeds different cases, not the same ones reordered", () => {
  const cases = (seed: number) =>
    new Set(Array.from({ length: 300 }, (_, i) => JSON.stringify(generateCase(seed, i).object)));
  const one = cases(1);
  const shared = [...cases(2)].filter(c => one.has(c)).length;
  // Some unmutated-looking cases coincide by chance; a reordering would share nearly all 300.
  expect(shared).toBeLessThan(60);
});
