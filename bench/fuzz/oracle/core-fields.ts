/**
 * version, image, instances, storage, resources, failover, readOnly and paused, from the CRD
 * (types, enums, patterns, CEL bounds) and its descriptions (the minimums: storage 256Mi,
 * cpu 10m, memory 128Mi), plus the README's YAML habit: a number given for a quantity (cpu,
 * memory, sizes) is stored as the string meant.
 */
import { readImage, tagMajor } from "./image";
import { Judge } from "./judge";
import { isDnsSubdomain } from "./k8s";
import { compare, isWhole, parseQuantity, q, Rational } from "./quantity";
import { bool, int, isApiInteger, obj, oneOf, required, str } from "./read";

export const VERSIONS = ["14", "15", "16", "17", "18"] as const;

/** The CRD's pattern for sizes (storage.size, readOnly.maxLag): no sign, no exponent, no milli. */
const SIZE_PATTERN = /^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
/** The CRD's pattern for int-or-string quantities (resources). */
const QUANTITY_PATTERN =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;

export function judgeImage(j: Judge, image: unknown, version: string | undefined): void {
  const f = "spec.image";
  const s = str(j, image, f, { min: 1, max: 512 });
  if (s === undefined) return;
  if (s.trim() === "") return j.bad(f, "blank", "product");
  const read = readImage(s);
  if (!read.ok) return j.bad(f, read.why, "oci");
  if (read.ambiguous) j.unsure(f, read.ambiguous);
  if (version === undefined) return;
  const major = tagMajor(read.tag);
  if (major.kind === "unclear") return j.unsure(f, major.why);
  if (major.kind === "major" && major.major !== version) {
    j.bad(f, `tag names major ${major.major}, not ${version}`, major.plain ? "crd" : "doc");
  }
}

/**
 * A size: the CRD's pattern, then ParseQuantity. A number is stored as the string meant (README
 * "YAML habits": quantities read as core Kubernetes reads its own), then judged as that string.
 */
function size(j: Judge, v: unknown, f: string): Rational | undefined {
  const text = typeof v === "number" && Number.isFinite(v) ? String(v) : v;
  const s = str(j, text, f, { pattern: SIZE_PATTERN });
  if (s === undefined) return undefined;
  const value = parseQuantity(s);
  if (!value) return void j.bad(f, "not a quantity", "crd");
  return value;
}

function judgeStorage(j: Judge, storage: unknown): void {
  const f = "spec.storage";
  if (storage === undefined) return j.bad(f, "required", "crd");
  const o = obj(j, storage, f);
  if (!o) return;
  required(j, o, f, ["size"]);
  const value = size(j, o.size, `${f}.size`);
  if (value) {
    if (compare(value, q("0")) <= 0) j.bad(`${f}.size`, "not greater than zero", "crd");
    else if (compare(value, q("64Ti")) > 0) j.bad(`${f}.size`, "over 64Ti", "crd");
    else if (compare(value, q("256Mi")) < 0) j.bad(`${f}.size`, "under 256Mi", "doc");
  }
  const cls = str(j, o.storageClassName, `${f}.storageClassName`, { max: 253 });
  if (cls !== undefined && !isDnsSubdomain(cls))
    j.bad(`${f}.storageClassName`, "not a DNS subdomain", "crd");
}

/** An int-or-string quantity as the apiserver (and Mutate, for floats) reads it. */
function quantityText(j: Judge, v: unknown, f: string): string | undefined {
  if (typeof v === "string") return v;
  if (isApiInteger(v)) return String(v);
  // README "YAML habits": cpu: 0.5 is stored as "0.5".
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return void j.bad(f, "not an integer or a string", "crd");
}

const LIMITS = {
  cpu: { min: "10m", max: "1024" },
  memory: { min: "128Mi", max: "16Ti" },
} as const;

function amount(j: Judge, v: unknown, f: string, kind: "cpu" | "memory"): Rational | undefined {
  if (v === undefined) return undefined;
  const text = quantityText(j, v, f);
  if (text === undefined) return undefined;
  if (!QUANTITY_PATTERN.test(text)) return void j.bad(f, "not a quantity", "crd");
  const value = parseQuantity(text);
  if (!value) return void j.bad(f, "not a quantity (CEL quantity() fails)", "crd");
  if (kind === "cpu" && /[KMGTPE]i$/.test(text)) return void j.bad(f, "binary suffix", "crd");
  const { min, max } = LIMITS[kind];
  if (compare(value, q("0")) <= 0) return void j.bad(f, "not greater than zero", "crd");
  if (compare(value, q(max)) > 0) return void j.bad(f, `over ${max}`, "crd");
  if (compare(value, q(min)) < 0) return void j.bad(f, `under ${min}`, "doc");
  return value;
}

function judgeResources(j: Judge, resources: unknown): void {
  const f = "spec.resources";
  const o = obj(j, resources, f);
  if (!o) return;
  const read = (side: "requests" | "limits") => {
    const list = obj(j, o[side], `${f}.${side}`);
    return {
      cpu: list ? amount(j, list.cpu, `${f}.${side}.cpu`, "cpu") : undefined,
      memory: list ? amount(j, list.memory, `${f}.${side}.memory`, "memory") : undefined,
    };
  };
  const requests = read("requests");
  const limits = read("limits");
  for (const kind of ["cpu", "memory"] as const) {
    const r = requests[kind];
    const l = limits[kind];
    if (r && l && compare(r, l) > 0) j.bad(`${f}.requests.${kind}`, "over the limit", "crd");
  }
}

function judgeReadOnly(j: Judge, readOnly: unknown): void {
  const f = "spec.readOnly";
  const o = obj(j, readOnly, f);
  if (!o) return;
  const value = size(j, o.maxLag, `${f}.maxLag`);
  if (!value) return;
  if (compare(value, q("1Ti")) > 0) return j.bad(`${f}.maxLag`, "over 1Ti", "crd");
  // Neither the CRD nor its description says whether no lag at all, or part of a byte, is allowed.
  if (compare(value, q("0")) === 0) j.unsure(`${f}.maxLag`, "zero: no replica could ever serve");
  else if (!isWhole(value)) j.unsure(`${f}.maxLag`, "a fraction of a byte");
}

function judgeFailover(j: Judge, failover: unknown): void {
  const f = "spec.failover";
  const o = obj(j, failover, f);
  if (!o) return;
  bool(j, o.enabled, `${f}.enabled`);
  int(j, o.delaySeconds, `${f}.delaySeconds`, 0, 3600);
  bool(j, o.promoteAfterFenceTimeout, `${f}.promoteAfterFenceTimeout`);
}

/** The fields above; returns the version when it is a supported one (other rules need it). */
export function judgeCoreFields(j: Judge, spec: Record<string, unknown>): string | undefined {
  if (spec.version === undefined) j.bad("spec.version", "required", "crd");
  const version = oneOf(j, spec.version, "spec.version", VERSIONS);
  judgeImage(j, spec.image, version);
  int(j, spec.instances, "spec.instances", 1, 9);
  judgeStorage(j, spec.storage);
  judgeResources(j, spec.resources);
  judgeFailover(j, spec.failover);
  judgeReadOnly(j, spec.readOnly);
  bool(j, spec.paused, "spec.paused");
  return version;
}
