/**
 * spec.scheduling.topologySpread: what the CRD's schema and CEL say, with the field named (the
 * webhook must not rely on the CRD being current): a label key, a skew and minDomains within the
 * instance count, a known whenUnsatisfiable, minDomains only with DoNotSchedule, each key once.
 */
import { MAX_INSTANCES } from "../../api/database-schema";
import { isLabelKey } from "./labels";
import { Denial, deny, Rule } from "./types";

const WHEN_UNSATISFIABLE = ["ScheduleAnyway", "DoNotSchedule"];

type Spread = {
  topologyKey: string;
  maxSkew?: number;
  whenUnsatisfiable?: string;
  minDomains?: number;
};

const withinInstances = (value: number | undefined, field: string): Denial[] =>
  value === undefined || (value >= 1 && value <= MAX_INSTANCES)
    ? []
    : [deny(field, `must be between 1 and ${MAX_INSTANCES}, got ${value}`)];

function entryDenials(t: Spread, field: string): Denial[] {
  const denials = [
    ...(isLabelKey(t.topologyKey)
      ? []
      : [
          deny(
            `${field}.topologyKey`,
            "is not a valid label key ([prefix/]name, name at most 63 characters)",
          ),
        ]),
    ...withinInstances(t.maxSkew, `${field}.maxSkew`),
    ...withinInstances(t.minDomains, `${field}.minDomains`),
  ];
  if (t.whenUnsatisfiable !== undefined && !WHEN_UNSATISFIABLE.includes(t.whenUnsatisfiable))
    denials.push(
      deny(
        `${field}.whenUnsatisfiable`,
        `"${t.whenUnsatisfiable}" is not allowed; use one of ${WHEN_UNSATISFIABLE.join(", ")}`,
      ),
    );
  if (t.minDomains !== undefined && t.whenUnsatisfiable !== "DoNotSchedule")
    denials.push(deny(`${field}.minDomains`, "minDomains needs whenUnsatisfiable: DoNotSchedule"));
  return denials;
}

export const topologySpreadRule: Rule = {
  name: "topology-spread",
  check: ({ db }) => {
    const spread = (db.spec.scheduling?.topologySpread ?? []) as Spread[];
    const field = "spec.scheduling.topologySpread";
    const seen = new Set<string>();
    return spread.flatMap((t, i) => {
      const denials = entryDenials(t, `${field}[${i}]`);
      if (seen.has(t.topologyKey))
        denials.push(deny(`${field}[${i}].topologyKey`, `"${t.topologyKey}" is named twice`));
      seen.add(t.topologyKey);
      return denials;
    });
  },
};
