/**
 * spec.monitoring (ADR 0043), from the CRD: enabled a boolean; customQueries at most 8 entries,
 * each a ConfigMap name (a DNS subdomain) and a key (a ConfigMap key), each pair once (a list
 * map keyed by both).
 */
import { isRecord, Judge } from "./judge";
import { isConfigMapKey, isDnsSubdomain } from "./k8s";

function judgeQuery(j: Judge, q: unknown, f: string, seen: Set<string>): void {
  if (!isRecord(q)) return j.bad(f, "not an object", "crd");
  const { name, key } = q;
  if (typeof name !== "string") j.bad(`${f}.name`, "required, a string", "crd");
  else if (!isDnsSubdomain(name)) j.bad(`${f}.name`, "not a ConfigMap name", "crd");
  if (typeof key !== "string") j.bad(`${f}.key`, "required, a string", "crd");
  else if (!isConfigMapKey(key)) j.bad(`${f}.key`, "not a ConfigMap key", "crd");
  const pair = JSON.stringify([name, key]);
  if (seen.has(pair)) j.bad(f, "named twice", "crd");
  seen.add(pair);
}

export function judgeMonitoring(j: Judge, monitoring: unknown): void {
  const f = "spec.monitoring";
  if (monitoring === undefined) return;
  if (!isRecord(monitoring)) return j.bad(f, "not an object", "crd");
  const { enabled, customQueries } = monitoring;
  if (enabled !== undefined && typeof enabled !== "boolean")
    j.bad(`${f}.enabled`, "not a boolean", "crd");
  if (customQueries === undefined) return;
  if (!Array.isArray(customQueries)) return j.bad(`${f}.customQueries`, "not a list", "crd");
  if (customQueries.length > 8) j.bad(`${f}.customQueries`, "more than 8", "crd");
  const seen = new Set<string>();
  customQueries.forEach((q, i) => judgeQuery(j, q, `${f}.customQueries[${i}]`, seen));
}
