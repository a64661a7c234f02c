/**
 * spec.scheduling judged by Kubernetes' pod validation (ValidateTolerations, validateAffinity,
 * ValidateLabelSelector) and the core/v1 schema the CRD embeds: what the StatefulSet will be
 * refused for, whatever the Database's own webhook says.
 */
import { isRecord, Judge } from "./judge";
import { isDnsLabel, isLabelValue, isQualifiedName } from "./k8s";
import { isApiInteger } from "./read";

const F = "spec.scheduling";

function str(j: Judge, v: unknown, field: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string") {
    j.bad(field, "not a string", "crd");
    return undefined;
  }
  return v;
}

/** The CRD's core/v1 enums (no empty string) and CEL rules, then ValidateTolerations. */
function toleration(j: Judge, t: unknown, f: string): void {
  if (!isRecord(t)) return j.bad(f, "not an object", "crd");
  const key = str(j, t.key, `${f}.key`) ?? "";
  const op = str(j, t.operator, `${f}.operator`);
  const value = str(j, t.value, `${f}.value`) ?? "";
  const effect = str(j, t.effect, `${f}.effect`);
  if (key.length > 1024) j.bad(`${f}.key`, "longer than 1024", "crd");
  else if (key !== "" && !isQualifiedName(key)) j.bad(`${f}.key`, "not a qualified name", "k8s");
  if (op !== undefined && op !== "Equal" && op !== "Exists")
    j.bad(`${f}.operator`, "not Equal or Exists", "crd");
  if (effect !== undefined && !["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(effect))
    j.bad(`${f}.effect`, "not a taint effect", "crd");
  if (key === "" && op !== "Exists")
    j.bad(`${f}.operator`, "must be Exists when key is empty", "crd");
  if (t.tolerationSeconds !== undefined) {
    if (!isApiInteger(t.tolerationSeconds))
      j.bad(`${f}.tolerationSeconds`, "not an integer", "crd");
    if (effect !== "NoExecute")
      j.bad(`${f}.tolerationSeconds`, "only with effect NoExecute", "crd");
  }
  if (value.length > 1024) j.bad(`${f}.value`, "longer than 1024", "crd");
  else if (op === "Exists" && value !== "") j.bad(`${f}.value`, "must be empty with Exists", "crd");
  else if (op !== "Exists" && !isLabelValue(value)) j.bad(`${f}.value`, "not a label value", "k8s");
}

function stringList(j: Judge, v: unknown, f: string): string[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return void j.bad(f, "not a list", "crd");
  if (v.some(x => typeof x !== "string")) return void j.bad(f, "not strings", "crd");
  return v as string[];
}

/** A node selector requirement (nodeAffinity) or a label selector requirement (pod terms). */
function requirement(j: Judge, r: unknown, f: string, node: boolean): void {
  if (!isRecord(r)) return j.bad(f, "not an object", "crd");
  if (typeof r.key !== "string") return j.bad(`${f}.key`, "required string", "crd");
  if (typeof r.operator !== "string") return j.bad(`${f}.operator`, "required string", "crd");
  if (!isQualifiedName(r.key)) j.bad(`${f}.key`, "not a qualified name", "k8s");
  const values = stringList(j, r.values, `${f}.values`);
  if (!values) return;
  const ops = node
    ? ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    : ["In", "NotIn", "Exists", "DoesNotExist"];
  if (!ops.includes(r.operator))
    return j.bad(`${f}.operator`, "unsupported operator", node ? "crd" : "k8s");
  if ((r.operator === "In" || r.operator === "NotIn") && values.length === 0)
    j.bad(`${f}.values`, "required for In/NotIn", "k8s");
  if ((r.operator === "Exists" || r.operator === "DoesNotExist") && values.length > 0)
    j.bad(`${f}.values`, "must be empty", "k8s");
  if ((r.operator === "Gt" || r.operator === "Lt") && values.length !== 1)
    j.bad(`${f}.values`, "Gt/Lt take one value", "k8s");
  // Pod validation stops there; the scheduler then fails to read a value that is no integer.
  else if ((r.operator === "Gt" || r.operator === "Lt") && !/^[+-]?\d+$/.test(values[0]))
    j.bad(`${f}.values`, "Gt/Lt take an integer", "product");
  if (values.some(v => !isLabelValue(v))) j.bad(`${f}.values`, "not label values", "k8s");
}

function eachOf(j: Judge, v: unknown, f: string, check: (item: unknown, f: string) => void): void {
  if (v === undefined) return;
  if (!Array.isArray(v)) return j.bad(f, "not a list", "crd");
  v.forEach((item, i) => check(item, `${f}[${i}]`));
}

function nodeTerm(j: Judge, t: unknown, f: string): void {
  if (!isRecord(t)) return j.bad(f, "not an object", "crd");
  eachOf(j, t.matchExpressions, `${f}.matchExpressions`, (r, g) => requirement(j, r, g, true));
  if (t.matchFields !== undefined) j.unsure(`${f}.matchFields`, "not modelled");
}

function weight(j: Judge, w: unknown, f: string): void {
  if (!isApiInteger(w)) return j.bad(f, "required integer", "crd");
  if ((w as number) < 1 || (w as number) > 100) j.bad(f, "must be 1..100", "k8s");
}

export function labelSelector(j: Judge, s: unknown, f: string): void {
  if (s === undefined) return;
  if (!isRecord(s)) return j.bad(f, "not an object", "crd");
  if (s.matchLabels !== undefined) {
    if (!isRecord(s.matchLabels)) return j.bad(`${f}.matchLabels`, "not a map", "crd");
    for (const [k, v] of Object.entries(s.matchLabels)) {
      if (typeof v !== "string") j.bad(`${f}.matchLabels`, "not strings", "crd");
      else if (!isQualifiedName(k) || !isLabelValue(v))
        j.bad(`${f}.matchLabels`, "not a label", "k8s");
    }
  }
  eachOf(j, s.matchExpressions, `${f}.matchExpressions`, (r, g) => requirement(j, r, g, false));
}

function podTerm(j: Judge, t: unknown, f: string): void {
  if (!isRecord(t)) return j.bad(f, "not an object", "crd");
  labelSelector(j, t.labelSelector, `${f}.labelSelector`);
  labelSelector(j, t.namespaceSelector, `${f}.namespaceSelector`);
  if (typeof t.topologyKey !== "string") return j.bad(`${f}.topologyKey`, "required string", "crd");
  if (t.topologyKey === "") j.bad(`${f}.topologyKey`, "must not be empty", "k8s");
  else if (!isQualifiedName(t.topologyKey))
    j.bad(`${f}.topologyKey`, "not a qualified name", "k8s");
  for (const keys of ["matchLabelKeys", "mismatchLabelKeys"])
    if (t[keys] !== undefined) j.unsure(`${f}.${keys}`, "not modelled");
  const namespaces = stringList(j, t.namespaces, `${f}.namespaces`);
  if (namespaces?.some(n => !isDnsLabel(n))) j.bad(`${f}.namespaces`, "not DNS labels", "k8s");
}

function nodeAffinity(j: Judge, a: unknown, f: string): void {
  if (a === undefined) return;
  if (!isRecord(a)) return j.bad(f, "not an object", "crd");
  const required = a.requiredDuringSchedulingIgnoredDuringExecution;
  const rf = `${f}.requiredDuringSchedulingIgnoredDuringExecution`;
  if (required !== undefined) {
    if (!isRecord(required) || !Array.isArray(required.nodeSelectorTerms)) {
      j.bad(`${rf}.nodeSelectorTerms`, "required list", "crd");
    } else {
      if (required.nodeSelectorTerms.length === 0)
        j.bad(`${rf}.nodeSelectorTerms`, "must have at least one term", "k8s");
      eachOf(j, required.nodeSelectorTerms, `${rf}.nodeSelectorTerms`, (t, g) => nodeTerm(j, t, g));
    }
  }
  eachOf(
    j,
    a.preferredDuringSchedulingIgnoredDuringExecution,
    `${f}.preferredDuringSchedulingIgnoredDuringExecution`,
    (p, g) => {
      if (!isRecord(p)) return j.bad(g, "not an object", "crd");
      weight(j, p.weight, `${g}.weight`);
      if (p.preference === undefined) return j.bad(`${g}.preference`, "required", "crd");
      nodeTerm(j, p.preference, `${g}.preference`);
    },
  );
}

function podAffinity(j: Judge, a: unknown, f: string): void {
  if (a === undefined) return;
  if (!isRecord(a)) return j.bad(f, "not an object", "crd");
  eachOf(
    j,
    a.requiredDuringSchedulingIgnoredDuringExecution,
    `${f}.requiredDuringSchedulingIgnoredDuringExecution`,
    (t, g) => podTerm(j, t, g),
  );
  eachOf(
    j,
    a.preferredDuringSchedulingIgnoredDuringExecution,
    `${f}.preferredDuringSchedulingIgnoredDuringExecution`,
    (p, g) => {
      if (!isRecord(p)) return j.bad(g, "not an object", "crd");
      weight(j, p.weight, `${g}.weight`);
      if (p.podAffinityTerm === undefined) return j.bad(`${g}.podAffinityTerm`, "required", "crd");
      podTerm(j, p.podAffinityTerm, `${g}.podAffinityTerm`);
    },
  );
}

function nodeSelector(j: Judge, s: unknown): void {
  if (s === undefined) return;
  const f = `${F}.nodeSelector`;
  if (!isRecord(s)) return j.bad(f, "not a map", "crd");
  if (Object.keys(s).length > 64) return j.bad(f, "more than 64 entries", "crd");
  for (const [k, v] of Object.entries(s)) {
    if (typeof v !== "string") j.bad(`${f}[${k}]`, "not a string", "crd");
    else if (!isQualifiedName(k)) j.bad(`${f}[${k}]`, "not a label key", "k8s");
    else if (!isLabelValue(v)) j.bad(`${f}[${k}]`, "not a label value", "k8s");
  }
}

export function judgeScheduling(j: Judge, s: unknown): void {
  if (s === undefined) return;
  if (!isRecord(s)) return j.bad(F, "not an object", "crd");
  nodeSelector(j, s.nodeSelector);
  if (s.tolerations !== undefined) {
    if (!Array.isArray(s.tolerations)) j.bad(`${F}.tolerations`, "not a list", "crd");
    else if (s.tolerations.length > 64) j.bad(`${F}.tolerations`, "more than 64", "crd");
    else s.tolerations.forEach((t, i) => toleration(j, t, `${F}.tolerations[${i}]`));
  }
  if (s.affinity !== undefined) {
    const a = s.affinity;
    if (!isRecord(a)) j.bad(`${F}.affinity`, "not an object", "crd");
    else {
      nodeAffinity(j, a.nodeAffinity, `${F}.affinity.nodeAffinity`);
      podAffinity(j, a.podAffinity, `${F}.affinity.podAffinity`);
      podAffinity(j, a.podAntiAffinity, `${F}.affinity.podAntiAffinity`);
    }
  }
  const anti = s.antiAffinity;
  if (anti !== undefined && !["preferred", "required", "none"].includes(anti as string)) {
    j.bad(`${F}.antiAffinity`, "not preferred, required or none", "crd");
  }
  if (s.topologySpread !== undefined) topologySpread(j, s.topologySpread);
}

/** One constraint: a label key, a skew and minDomains in 1..9, minDomains only with DoNotSchedule. */
function spreadEntry(j: Judge, t: unknown, f: string): string | undefined {
  if (!isRecord(t)) return void j.bad(f, "not an object", "crd");
  const key = t.topologyKey;
  if (typeof key !== "string") j.bad(`${f}.topologyKey`, "required, a string", "crd");
  else if (key.length > 317 || !isQualifiedName(key))
    j.bad(`${f}.topologyKey`, "not a label key", "crd");
  for (const n of ["maxSkew", "minDomains"]) {
    const v = t[n];
    if (v === undefined) continue;
    if (!isApiInteger(v)) j.bad(`${f}.${n}`, "not an integer", "crd");
    else if (v < 1 || v > 9) j.bad(`${f}.${n}`, "not within 1..9", "crd");
  }
  const when = t.whenUnsatisfiable;
  if (when !== undefined && !["ScheduleAnyway", "DoNotSchedule"].includes(when as string))
    j.bad(`${f}.whenUnsatisfiable`, "not ScheduleAnyway or DoNotSchedule", "crd");
  if (t.minDomains !== undefined && when !== "DoNotSchedule")
    j.bad(`${f}.minDomains`, "without whenUnsatisfiable: DoNotSchedule", "crd");
  return typeof key === "string" ? key : undefined;
}

/** A list map keyed by topologyKey: at most 8, each key once. */
function topologySpread(j: Judge, list: unknown): void {
  const f = `${F}.topologySpread`;
  if (!Array.isArray(list)) return j.bad(f, "not a list", "crd");
  if (list.length > 8) j.bad(f, "more than 8", "crd");
  const seen = new Set<string>();
  list.forEach((t, i) => {
    const key = spreadEntry(j, t, `${f}[${i}]`);
    if (key !== undefined && seen.has(key)) j.bad(`${f}[${i}]`, "topologyKey named twice", "crd");
    if (key !== undefined) seen.add(key);
  });
}
