import { isLabelKey, isLabelValue } from "./labels";
import { Denial, deny, Rule } from "./types";

const ANTI_AFFINITY = ["preferred", "required", "none"];
const OPERATORS = ["Exists", "Equal"];
const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

export const antiAffinityRule: Rule = {
  name: "anti-affinity",
  check: ({ db }) => {
    const value = db.spec.scheduling?.antiAffinity;
    if (value === undefined || ANTI_AFFINITY.includes(value)) return [];
    return [
      deny(
        "spec.scheduling.antiAffinity",
        `"${value}" is not allowed; use one of ${ANTI_AFFINITY.join(", ")}`,
      ),
    ];
  },
};

/** A node selector that is not a valid label selector makes the StatefulSet apply fail. */
export const nodeSelectorRule: Rule = {
  name: "node-selector",
  check: ({ db }) =>
    Object.entries(db.spec.scheduling?.nodeSelector ?? {}).flatMap(([key, value]): Denial[] => {
      const field = `spec.scheduling.nodeSelector[${key}]`;
      if (!isLabelKey(key)) {
        return [
          deny(field, "is not a valid label key ([prefix/]name, name at most 63 characters)"),
        ];
      }
      if (!isLabelValue(value)) {
        return [
          deny(
            field,
            `"${value}" is not a valid label value (at most 63 letters, digits, '-', '_', '.')`,
          ),
        ];
      }
      return [];
    }),
};

/** Field types of a toleration (the CRD's schema says the same when the webhook is down). */
function tolerationTypeDenials(t: Record<string, unknown>, field: string): Denial[] {
  const denials = ["key", "operator", "value", "effect"]
    .filter(key => t[key] !== undefined && typeof t[key] !== "string")
    .map(key => deny(`${field}.${key}`, "must be a string"));
  if (t.tolerationSeconds !== undefined && !Number.isInteger(t.tolerationSeconds)) {
    denials.push(deny(`${field}.tolerationSeconds`, "must be an integer"));
  }
  return denials;
}

function tolerationDenials(t: Record<string, unknown>, field: string): Denial[] {
  const denials = tolerationTypeDenials(t, field);
  if (typeof t.operator === "string" && !OPERATORS.includes(t.operator)) {
    denials.push(deny(`${field}.operator`, `"${t.operator}" is not allowed; use Exists or Equal`));
  }
  if (typeof t.effect === "string" && t.effect !== "" && !EFFECTS.includes(t.effect)) {
    denials.push(
      deny(`${field}.effect`, `"${t.effect}" is not allowed; use one of ${EFFECTS.join(", ")}`),
    );
  }
  if (t.operator === "Exists" && t.value !== undefined && t.value !== "") {
    denials.push(deny(`${field}.value`, "must be empty when operator is Exists"));
  }
  return [...denials, ...tolerationValueDenials(t, field)];
}

/** Key and value syntax, and the rules between fields that core/v1 enforces on pods. */
function tolerationValueDenials(t: Record<string, unknown>, field: string): Denial[] {
  const denials: Denial[] = [];
  const key = typeof t.key === "string" ? t.key : "";
  if (key !== "" && !isLabelKey(key)) {
    denials.push(deny(`${field}.key`, `"${key}" is not a valid label key`));
  }
  // operator defaults to Equal, which needs a key: only Exists may match every taint.
  if (key === "" && (t.operator === undefined || t.operator === "Equal")) {
    denials.push(deny(`${field}.operator`, "must be Exists when key is empty"));
  }
  if (typeof t.value === "string" && t.operator !== "Exists" && !isLabelValue(t.value)) {
    denials.push(deny(`${field}.value`, `"${t.value}" is not a valid label value`));
  }
  if (t.tolerationSeconds !== undefined && t.effect !== "NoExecute") {
    denials.push(
      deny(
        `${field}.tolerationSeconds`,
        "is only allowed with effect NoExecute (it bounds an eviction)",
      ),
    );
  }
  return denials;
}

/**
 * The rules between a toleration's fields, which the CRD's schema (core/v1's) cannot express; a
 * malformed one would only fail later, at the StatefulSet.
 */
export const tolerationsRule: Rule = {
  name: "tolerations",
  check: ({ db }) =>
    (db.spec.scheduling?.tolerations ?? []).flatMap((t, i) =>
      tolerationDenials(t, `spec.scheduling.tolerations[${i}]`),
    ),
};
