/**
 * The fuzz oracle (bench/fuzz/oracle) against the hand-labelled admission corpus: every valid
 * case judged valid, every invalid one invalid with a finding on the field it is labelled with
 * (or inside it). The oracle is written independently of the admission code, so this checks the
 * oracle and the corpus against each other; the cluster reads (the recovery source's Secrets and
 * major) are given the view the integration runner sets up.
 */
import { judgeDatabase, judgeUpdate } from "../../../bench/fuzz/oracle/database";
import type { ClusterView } from "../../../bench/fuzz/oracle/cluster";
import type { Judgement } from "../../../bench/fuzz/oracle/judge";
import { INVALID, InvalidCase, VALID } from "../../admission-corpus";
import { fill } from "../../admission-corpus/run";

const VALUES = {
  NS: "corpus-ns",
  SOURCE: "source",
  SOURCE_UID: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
  SECRET: "corpus-s3",
};

const CLUSTER: ClusterView = {
  namespace: VALUES.NS,
  secrets: new Set([VALUES.SECRET]),
  databases: new Map([
    [`${VALUES.NS}/${VALUES.SOURCE}`, { uid: VALUES.SOURCE_UID, version: "15" }],
  ]),
};

/** Invalid cases the oracle cannot decide, with why (none so far: the view above suffices). */
const UNKNOWABLE: Record<string, string> = {};

const database = (name: string, spec: unknown): Record<string, unknown> => ({
  apiVersion: "pgkeeper.dev/v1alpha1",
  kind: "Database",
  metadata: { name, namespace: VALUES.NS },
  ...(spec === undefined ? {} : { spec: fill(spec, VALUES) }),
});

/** RFC 7386 JSON merge patch, as `kubectl patch --type merge` applies it. */
function merge(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/** A finding names the labelled field, or a field inside it. */
const names = (finding: string, label: string): boolean =>
  finding === label || finding.startsWith(`${label}.`) || finding.startsWith(`${label}[`);

function judge(c: InvalidCase): Judgement {
  const name = c.name ?? "case";
  if (c.old === undefined) return judgeDatabase(database(name, c.spec), { cluster: CLUSTER });
  const old = database(name, c.old);
  return judgeUpdate(old, { ...old, spec: merge(old.spec, fill(c.patch, VALUES)) });
}

const show = (j: Judgement): string =>
  `${j.verdict}: ${JSON.stringify(j.findings.map(f => `${f.field} (${f.why})`))} ${JSON.stringify(j.unknowns)}`;

it("judges every valid corpus case valid", () => {
  const wrong = VALID.map(c => ({
    c,
    j: judgeDatabase(database(c.name ?? "case", c.spec), { cluster: CLUSTER }),
  }))
    .filter(({ j }) => j.verdict !== "valid")
    .map(({ c, j }) => `${c.id}: ${show(j)}`);
  expect(wrong).toEqual([]);
});

it("judges every invalid corpus case invalid, with a finding on its labelled field", () => {
  const wrong = INVALID.filter(c => !(c.id in UNKNOWABLE))
    .map(c => ({ c, j: judge(c) }))
    .filter(({ c, j }) => j.verdict !== "invalid" || !j.findings.some(f => names(f.field, c.field)))
    .map(({ c, j }) => `${c.id} [${c.field}]: ${show(j)}`);
  expect(wrong).toEqual([]);
});

it("lists only corpus cases that exist as unknowable", () => {
  const ids = new Set(INVALID.map(c => c.id));
  expect(Object.keys(UNKNOWABLE).filter(id => !ids.has(id))).toEqual([]);
});
