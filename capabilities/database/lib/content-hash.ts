/**
 * A stable digest of a JSON-like value, as the applied-hash annotation and the pod template's
 * config hash need: key order does not matter. It is taken on every desired child of every pass,
 * so it is built for that:
 * - one pass over the value writes its JSON with sorted keys, where sorting copies of every
 *   object first (and collecting them) cost as much as the hashing;
 * - a long text (the instance scripts: 57 of a config ConfigMap's 60 KiB, the same in every
 *   Database) is hashed once per process and stands in by its digest, so each pass hashes a
 *   few hundred bytes for it instead of escaping and hashing the whole text again.
 * A profile of 1,000 Databases converging had hashing at about a quarter of the watcher's busy
 * time before (docs/benchmarks.md).
 */
import { createHash } from "node:crypto";

/** Texts at least this long stand in by their digest. */
export const LONG_TEXT_MIN_LENGTH = 4096;
/** Long texts whose digest is remembered at once: the scripts of a few builds, with room. */
export const LONG_TEXT_LIMIT = 128;

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

const digests = new Map<string, string>();

function textDigest(text: string): string {
  let digest = digests.get(text);
  if (digest === undefined) {
    if (digests.size >= LONG_TEXT_LIMIT) digests.clear();
    digest = sha256(text);
    digests.set(text, digest);
  }
  return digest;
}

/** What JSON.stringify calls an array index. The first character rules out almost every key. */
function isIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

/**
 * The order JSON.stringify gives an object built from its keys sorted: array indexes first in
 * numeric order, which is where and how Object.keys already lists them, then the others sorted.
 */
function keyOrder(value: object): string[] {
  const keys = Object.keys(value);
  let indexes = 0;
  while (indexes < keys.length && isIndex(keys[indexes])) indexes++;
  if (indexes === 0) return keys.sort();
  return [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

const omitted = (v: unknown): boolean =>
  v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * `JSON.stringify` of `value` with every object's keys sorted, and each text of at least
 * LONG_TEXT_MIN_LENGTH characters written as `"sha256:<its digest>"`. Undefined where
 * JSON.stringify gives undefined (a function, a symbol, undefined).
 */
export function stableJson(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") {
    if (typeof value === "string" && value.length >= LONG_TEXT_MIN_LENGTH)
      return `"sha256:${textDigest(value)}"`;
    return JSON.stringify(value);
  }
  if (Array.isArray(value))
    return `[${value.map(v => (omitted(v) ? "null" : stableJson(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of keyOrder(record)) {
    const field = record[key];
    if (!omitted(field)) fields.push(`${JSON.stringify(key)}:${stableJson(field)}`);
  }
  return `{${fields.join(",")}}`;
}

/** sha256 (hex) of `value`'s stableJson. */
export const contentDigest = (value: unknown): string => sha256(stableJson(value) ?? "");
