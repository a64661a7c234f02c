/**
 * The oracle's verdict on a whole Database, written from the API (database-schema.ts,
 * deploy/crd.yaml's rules and descriptions, the README), the parameter catalogs and Kubernetes'
 * rules, never from the admission code it judges. A create is judged as the apiserver sees it
 * (nulls of known fields dropped, strict field validation); an update also by the transitions
 * the API forbids.
 */
import { judgeMonitoring } from "./monitoring";
import { judgeBackup } from "./backup";
import { judgeBootstrap } from "./bootstrap";
import type { ClusterView } from "./cluster";
import { judgeCoreFields } from "./core-fields";
import { isRecord, Judge, Judgement } from "./judge";
import { isDnsSubdomain } from "./k8s";
import { SPEC, unknownFields } from "./known";
import { normalize } from "./normalize";
import { judgePostgresql } from "./postgresql";
import { compare, parseQuantity } from "./quantity";
import { judgeScheduling } from "./scheduling";
import { judgeNetworkPolicy } from "./network";

function judgeName(j: Judge, metadata: unknown): void {
  const f = "metadata.name";
  const name = isRecord(metadata) ? metadata.name : undefined;
  if (typeof name !== "string" || name === "") return j.bad(f, "required", "k8s");
  if (!isDnsSubdomain(name)) return j.bad(f, "not a DNS subdomain", "k8s");
  if (name.length > 50) j.bad(f, "longer than 50", "crd");
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) j.bad(f, "not a DNS-1035 label", "crd");
}

function judgeSpec(j: Judge, spec: unknown, cluster: ClusterView | undefined): void {
  if (spec === undefined) return j.bad("spec", "required", "crd");
  if (!isRecord(spec)) return j.bad("spec", "not an object", "crd");
  unknownFields(j, spec, SPEC, "spec");
  const version = judgeCoreFields(j, spec);
  judgeScheduling(j, spec.scheduling);
  judgePostgresql(j, spec.postgresql, version, spec.instances);
  judgeBackup(j, spec.backup);
  judgeBootstrap(j, spec.bootstrap, version, cluster);
  judgeNetworkPolicy(j, spec.networkPolicy);
  judgeMonitoring(j, spec.monitoring);
}

export interface JudgeOptions {
  /** What admission would read: enables the recovery source's rules. */
  cluster?: ClusterView;
  /**
   * The object as sent straight to the webhook (direct mode): no apiserver before it dropped
   * the nulls of known fields, so a null is judged as the value it is.
   */
  direct?: boolean;
}

/** Judges a Database as created. */
export function judgeDatabase(database: unknown, options: JudgeOptions = {}): Judgement {
  const j = new Judge();
  const { cluster, direct = false } = options;
  const db = direct ? database : normalize(database);
  if (!isRecord(db)) {
    j.bad("", "not an object", "k8s");
    return j.result();
  }
  judgeName(j, db.metadata);
  judgeSpec(j, db.spec, cluster);
  return j.result();
}

const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (isRecord(v) ? v[k] : undefined), o);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The transitions the API forbids (CEL transition rules; "Fixed after creation"). */
function judgeTransitions(j: Judge, old: unknown, next: unknown): void {
  if (!same(at(old, "spec", "version"), at(next, "spec", "version")))
    j.bad("spec.version", "immutable", "crd");
  const [was, is] = [at(old, "spec", "storage", "size"), at(next, "spec", "storage", "size")];
  const [a, b] = [
    typeof was === "string" ? parseQuantity(was) : undefined,
    typeof is === "string" ? parseQuantity(is) : undefined,
  ];
  if (a && b && compare(b, a) < 0) j.bad("spec.storage.size", "cannot shrink", "crd");
  const classes = [old, next].map(o => at(o, "spec", "storage", "storageClassName"));
  if (!same(classes[0], classes[1])) {
    const both = classes.every(c => c !== undefined);
    j.bad("spec.storage.storageClassName", "fixed after creation", both ? "crd" : "doc");
  }
  // Scaling below the quorum: the change that breaks the rule is the one to name.
  const [from, to] = [old, next].map(o => at(o, "spec", "instances") ?? 1);
  const quorum = at(next, "spec", "postgresql", "synchronous", "number");
  if (typeof to === "number" && typeof quorum === "number" && to < (from as number) && quorum >= to)
    j.bad("spec.instances", `below what synchronous.number ${quorum} needs`, "product");
  const boots = [old, next].map(o => at(o, "spec", "bootstrap"));
  if (!same(boots[0], boots[1])) {
    const both = boots.every(b => b !== undefined);
    j.bad("spec.bootstrap", "fixed after creation", both ? "crd" : "doc");
  }
}

/** Judges an update from `old` (as stored) to `next`: the object's own rules, then transitions. */
export function judgeUpdate(old: unknown, next: unknown): Judgement {
  const j = new Judge();
  const own = judgeDatabase(next);
  own.findings.forEach(f => j.bad(f.field, f.why, f.source));
  // Admission reads the recovery source on create only.
  own.unknowns
    .filter(u => !u.startsWith("spec.bootstrap.recovery.source:"))
    .forEach(u => j.unknowns.push(u));
  judgeTransitions(j, normalize(old), normalize(next));
  return j.result();
}
