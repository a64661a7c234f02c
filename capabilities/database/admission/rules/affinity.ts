/**
 * The rules core/v1 puts on an Affinity that its OpenAPI schema (what the CRD carries) does not
 * say: operators and their values, non-empty topology keys, weights 1..100, valid label values.
 * Without them a malformed affinity is admitted here and only fails at the StatefulSet, where
 * no one reads the error.
 */
import { Denial, deny, Rule } from "./types";
import { isLabelKey, isLabelValue } from "./labels";
import { isRecord } from "./util";

const NODE_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"];
const LABEL_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter(isRecord) : [];

/** What each operator asks of `values`: undefined when they fit, else why not. */
const VALUES_RULE: Record<string, (values: unknown[]) => string | undefined> = {
  In: v => (v.length === 0 ? "must not be empty with operator In" : undefined),
  NotIn: v => (v.length === 0 ? "must not be empty with operator NotIn" : undefined),
  Exists: v => (v.length > 0 ? "must be empty with operator Exists" : undefined),
  DoesNotExist: v => (v.length > 0 ? "must be empty with operator DoesNotExist" : undefined),
  Gt: v => singleInteger(v, "Gt"),
  Lt: v => singleInteger(v, "Lt"),
};

function singleInteger(values: unknown[], operator: string): string | undefined {
  if (values.length === 1 && /^-?[0-9]+$/.test(String(values[0]))) return undefined;
  return `must be a single integer with operator ${operator}`;
}

/** A requirement (node selector or label selector): key, operator, values. */
function requirementDenials(
  r: Record<string, unknown>,
  field: string,
  operators: string[],
): Denial[] {
  const { key, operator } = r;
  const denials: Denial[] = [];
  if (typeof key === "string" && !isLabelKey(key)) {
    denials.push(deny(`${field}.key`, `"${key}" is not a valid label key`));
  }
  if (typeof operator !== "string") return denials;
  if (!operators.includes(operator)) {
    const allowed = operators.join(", ");
    return [
      ...denials,
      deny(`${field}.operator`, `"${operator}" is not allowed; use one of ${allowed}`),
    ];
  }
  const problem = VALUES_RULE[operator](Array.isArray(r.values) ? r.values : []);
  return problem === undefined ? denials : [...denials, deny(`${field}.values`, problem)];
}

const nodeTermDenials = (term: Record<string, unknown>, field: string): Denial[] =>
  (["matchExpressions", "matchFields"] as const).flatMap(part =>
    list(term[part]).flatMap((r, i) =>
      requirementDenials(r, `${field}.${part}[${i}]`, NODE_OPERATORS),
    ),
  );

/**
 * A label selector's In and NotIn values must be label values, as metav1 validation has it for
 * every selector it checks on a new object (NetworkPolicy peers, pod affinity terms); the fuzz
 * bench got a NUL byte in one admitted (issue 28), which only the NetworkPolicy's apply refused.
 */
const selectorValueDenials = (r: Record<string, unknown>, field: string): Denial[] =>
  Array.isArray(r.values)
    ? r.values.flatMap((v, i): Denial[] =>
        typeof v === "string" && !isLabelValue(v)
          ? [deny(`${field}.values[${i}]`, `${JSON.stringify(v)} is not a valid label value`)]
          : [],
      )
    : [];

export function labelSelectorDenials(selector: unknown, field: string): Denial[] {
  if (!isRecord(selector)) return [];
  const labels = isRecord(selector.matchLabels) ? selector.matchLabels : {};
  const badLabels = Object.entries(labels)
    .filter(([k, v]) => !isLabelKey(k) || typeof v !== "string" || !isLabelValue(v))
    .map(([k]) => deny(`${field}.matchLabels`, `"${k}" is not a valid label key and value`));
  const expressions = list(selector.matchExpressions).flatMap((r, i) => [
    ...requirementDenials(r, `${field}.matchExpressions[${i}]`, LABEL_OPERATORS),
    ...selectorValueDenials(r, `${field}.matchExpressions[${i}]`),
  ]);
  return [...badLabels, ...expressions];
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function podTermDenials(term: Record<string, unknown>, field: string): Denial[] {
  const denials = labelSelectorDenials(term.labelSelector, `${field}.labelSelector`);
  denials.push(...labelSelectorDenials(term.namespaceSelector, `${field}.namespaceSelector`));
  if (Array.isArray(term.namespaces)) {
    term.namespaces.forEach((ns, i) => {
      if (typeof ns !== "string" || !DNS_LABEL.test(ns))
        denials.push(
          deny(`${field}.namespaces[${i}]`, `${JSON.stringify(ns)} is not a namespace name`),
        );
    });
  }
  if (typeof term.topologyKey === "string" && term.topologyKey === "") {
    denials.push(deny(`${field}.topologyKey`, "must not be empty (e.g. kubernetes.io/hostname)"));
  } else if (typeof term.topologyKey === "string" && !isLabelKey(term.topologyKey)) {
    denials.push(deny(`${field}.topologyKey`, `"${term.topologyKey}" is not a valid label key`));
  }
  return denials;
}

function weightDenials(item: Record<string, unknown>, field: string): Denial[] {
  const { weight } = item;
  if (typeof weight !== "number" || (weight >= 1 && weight <= 100)) return [];
  return [deny(`${field}.weight`, `${weight} is out of range; allowed 1..100`)];
}

function nodeAffinityDenials(node: unknown, field: string): Denial[] {
  if (!isRecord(node)) return [];
  const required = node.requiredDuringSchedulingIgnoredDuringExecution;
  const requiredField = `${field}.requiredDuringSchedulingIgnoredDuringExecution`;
  const terms = isRecord(required)
    ? list(required.nodeSelectorTerms).flatMap((t, i) =>
        nodeTermDenials(t, `${requiredField}.nodeSelectorTerms[${i}]`),
      )
    : [];
  // No pod matches an empty list of terms: the StatefulSet's pods would never be scheduled.
  if (isRecord(required) && list(required.nodeSelectorTerms).length === 0) {
    terms.push(
      deny(
        `${requiredField}.nodeSelectorTerms`,
        "must have at least one term (none matches no node)",
      ),
    );
  }
  const preferredField = `${field}.preferredDuringSchedulingIgnoredDuringExecution`;
  const preferred = list(node.preferredDuringSchedulingIgnoredDuringExecution).flatMap((p, i) => [
    ...weightDenials(p, `${preferredField}[${i}]`),
    ...(isRecord(p.preference)
      ? nodeTermDenials(p.preference, `${preferredField}[${i}].preference`)
      : []),
  ]);
  return [...terms, ...preferred];
}

function podAffinityDenials(pod: unknown, field: string): Denial[] {
  if (!isRecord(pod)) return [];
  const requiredField = `${field}.requiredDuringSchedulingIgnoredDuringExecution`;
  const required = list(pod.requiredDuringSchedulingIgnoredDuringExecution).flatMap((t, i) =>
    podTermDenials(t, `${requiredField}[${i}]`),
  );
  const preferredField = `${field}.preferredDuringSchedulingIgnoredDuringExecution`;
  const preferred = list(pod.preferredDuringSchedulingIgnoredDuringExecution).flatMap((p, i) => [
    ...weightDenials(p, `${preferredField}[${i}]`),
    ...(isRecord(p.podAffinityTerm)
      ? podTermDenials(p.podAffinityTerm, `${preferredField}[${i}].podAffinityTerm`)
      : []),
  ]);
  return [...required, ...preferred];
}

export const affinityRule: Rule = {
  name: "affinity",
  check: ({ db }) => {
    const affinity = db.spec.scheduling?.affinity;
    if (!isRecord(affinity)) return [];
    const field = "spec.scheduling.affinity";
    return [
      ...nodeAffinityDenials(affinity.nodeAffinity, `${field}.nodeAffinity`),
      ...podAffinityDenials(affinity.podAffinity, `${field}.podAffinity`),
      ...podAffinityDenials(affinity.podAntiAffinity, `${field}.podAntiAffinity`),
    ];
  },
};
