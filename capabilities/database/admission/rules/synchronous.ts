import { Denial, deny, Rule, RuleContext } from "./types";

const MODE = "spec.postgresql.synchronous.mode";
const NUMBER = "spec.postgresql.synchronous.number";
const MODES = ["off", "quorum"];

export const synchronousModeRule: Rule = {
  name: "synchronous-mode",
  check: ({ db }) => {
    const mode = db.spec.postgresql?.synchronous?.mode;
    if (mode === undefined || MODES.includes(mode)) return [];
    return [deny(MODE, `"${mode}" is not a mode; allowed: ${MODES.join(", ")}`)];
  },
};

/** number >= instances: on a scale-down, say that the scale-down is the problem. */
function tooFewInstances({ db, old }: RuleContext, number: number): Denial[] {
  const instances = db.spec.instances ?? 1;
  if (number < instances) return [];
  const before = old?.spec.instances ?? 1;
  if (old && instances < before) {
    return [
      deny(
        "spec.instances",
        `cannot scale down to ${instances} while ${NUMBER} is ${number}: quorum commits need at least ${number + 1} instances; lower synchronous.number first`,
      ),
    ];
  }
  return [
    deny(
      NUMBER,
      `${number} must be less than spec.instances (${instances}): each commit waits for that many standbys besides the primary`,
    ),
  ];
}

/** Denials of a quorum configuration. */
function quorumDenials(ctx: RuleContext, number: number | undefined): Denial[] {
  if ((ctx.db.spec.instances ?? 1) < 2) {
    return [deny(MODE, "quorum needs at least 2 instances (a primary and a synchronous standby)")];
  }
  if (number === undefined) {
    return [deny(NUMBER, "is required when mode is quorum (1..instances-1)")];
  }
  if (number < 1) return [deny(NUMBER, `${number} must be at least 1`)];
  return tooFewInstances(ctx, number);
}

export const synchronousNumberRule: Rule = {
  name: "synchronous-number",
  check: ctx => {
    const mode = ctx.db.spec.postgresql?.synchronous?.mode;
    const number = ctx.db.spec.postgresql?.synchronous?.number;
    if (mode === "quorum") return quorumDenials(ctx, number);
    // An unknown mode is synchronous-mode's denial; guessing what it meant helps no one.
    if (mode !== undefined && !MODES.includes(mode)) return [];
    return number === undefined ? [] : [deny(NUMBER, "is only allowed with mode quorum")];
  },
};
