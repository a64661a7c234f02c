/**
 * The figures of one mode's run, kept as counts and a few examples per group so a 10,000-case
 * run holds (and prints) a bounded amount: outcomes, the oracle's verdicts, and where they
 * disagree (admitted but invalid, false refusals), unknowns, robustness failures.
 */
import type { FuzzCase } from "./generate";
import type { Finding, Judgement } from "./oracle/judge";
import type { Outcome } from "./outcome";

export const EXAMPLES_PER_GROUP = 5;

export interface Example {
  index: number;
  base: string;
  changes: string[];
  /** The denial or failure, when there was one. */
  message?: string;
  /** What the oracle said (its findings or unknowns). */
  oracle?: string;
}

export class Groups {
  private readonly groups = new Map<string, { count: number; examples: Example[] }>();

  add(key: string, example: Example): void {
    const g = this.groups.get(key) ?? { count: 0, examples: [] };
    g.count++;
    if (g.examples.length < EXAMPLES_PER_GROUP) g.examples.push(example);
    this.groups.set(key, g);
  }

  get total(): number {
    return [...this.groups.values()].reduce((n, g) => n + g.count, 0);
  }

  /** Largest groups first. */
  sorted(): [string, { count: number; examples: Example[] }][] {
    return [...this.groups.entries()].sort((a, b) => b[1].count - a[1].count);
  }
}

/** A finding's field with list indices folded, so tolerations[0] and [1] group together. */
const fieldKey = (f: Finding): string => `${f.field.replace(/\[[0-9]+\]/g, "[i]")} (${f.source})`;

/** A denial without its quoted values and numbers, to group like refusals. */
const messageKey = (m: string): string =>
  m
    .replace(/"[^"]*"/g, '"…"')
    .replace(/[0-9]+/g, "N")
    .slice(0, 160);

/**
 * Whether a refusal names `field`: as the webhook writes a map key ([k]) or the apiserver (.k),
 * or the map itself when the message names the key too ("parameters: port is managed…").
 */
export function namesField(message: string, field: string): boolean {
  if (message.includes(field)) return true;
  if (message.includes(field.replace(/\[([^\]0-9][^\]]*)\]/g, ".$1"))) return true;
  const entry = /^(.*)\[([^\]0-9][^\]]*)\]$/.exec(field);
  return entry !== null && message.includes(entry[1]) && message.includes(entry[2]);
}

const describeOracle = (j: Judgement): string =>
  j.verdict === "unknown"
    ? j.unknowns.join("; ").slice(0, 300)
    : j.findings
        .map(f => `${f.field}: ${f.why} [${f.source}]`)
        .join("; ")
        .slice(0, 300);

export class Tally {
  readonly counts = { admitted: 0, denied: 0, failure: 0 };
  readonly verdicts = { valid: 0, invalid: 0, unknown: 0 };
  readonly agree = { admittedValid: 0, deniedInvalid: 0 };
  readonly unknownOutcomes = { admitted: 0, denied: 0 };
  readonly latencies: number[] = [];
  readonly admittedInvalid = new Groups();
  admittedInvalidCases = 0;
  /** Admitted but invalid only by the CRD's schema and CEL: the apiserver's job, not the webhook's. */
  admittedInvalidSchemaOnly = 0;
  readonly falseRefusals = new Groups();
  readonly unknowns = new Groups();
  readonly failures = new Groups();
  readonly unnamed = new Groups();

  add(c: FuzzCase, j: Judgement, o: Outcome): void {
    this.counts[o.kind]++;
    this.verdicts[j.verdict]++;
    this.latencies.push(o.ms);
    const example: Example = {
      index: c.index,
      base: c.base,
      changes: c.changes,
      ...(o.kind === "admitted" ? {} : { message: o.message }),
      oracle: describeOracle(j),
    };
    if (o.kind === "failure") return this.failures.add(o.what, example);
    if (j.verdict === "unknown") {
      this.unknownOutcomes[o.kind]++;
      return this.unknowns.add(j.unknowns[0].replace(/\[[^\]]*\]/, "[…]").slice(0, 120), example);
    }
    if (j.verdict === "valid") {
      if (o.kind === "admitted") this.agree.admittedValid++;
      else this.falseRefusals.add(messageKey(o.message), example);
      return;
    }
    if (o.kind === "admitted") return this.addAdmittedInvalid(j, example);
    this.agree.deniedInvalid++;
    if (!j.findings.some(f => namesField(o.message, f.field)))
      this.unnamed.add(fieldKey(j.findings[0]), example);
  }

  private addAdmittedInvalid(j: Judgement, example: Example): void {
    this.admittedInvalidCases++;
    if (j.findings.every(f => f.source === "crd")) this.admittedInvalidSchemaOnly++;
    for (const key of new Set(j.findings.map(fieldKey))) this.admittedInvalid.add(key, example);
  }
}
