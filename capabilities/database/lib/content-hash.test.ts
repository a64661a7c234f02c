import { createHash } from "node:crypto";
import { contentDigest, LONG_TEXT_LIMIT, LONG_TEXT_MIN_LENGTH, stableJson } from "./content-hash";
import { desiredChildren } from "../specs";
import { DB_NAME, fixtureTls, input } from "../../../test/unit/builder-fixtures";

/** The formula the applied hashes were written with before: sorted copies, then JSON.stringify. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map(k => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  return value;
};
const before = (value: unknown): string | undefined => JSON.stringify(canonical(value));

const LONG = "#!/bin/sh\n" + "echo 'a line of a script'\n".repeat(LONG_TEXT_MIN_LENGTH / 20);

describe("stableJson", () => {
  it.each<[string, unknown]>([
    ["null", null],
    ["a number", 5432],
    ["NaN (null in JSON)", NaN],
    ["a boolean", false],
    ["a text with quotes, newlines and unicode", 'a "b"\n\u00e9\u2028'],
    ["a text one short of long", "x".repeat(LONG_TEXT_MIN_LENGTH - 1)],
    ["an empty object", {}],
    ["keys in any order, nested", { b: { d: 1, c: [2, { f: 3, e: 4 }] }, a: "x" }],
    ["array-index keys, listed first in numeric order", { b: 1, "10": 2, "9": 3, "01": 4, a: 5 }],
    [
      "undefined, function and symbol fields omitted",
      { a: undefined, b: () => 1, c: Symbol("s"), d: 1 },
    ],
    ["undefined, function and symbol in arrays as null", [undefined, () => 1, Symbol("s"), 1]],
    ["a Date (its own keys: none)", { at: new Date(0) }],
    [
      "a Kubernetes-like object",
      {
        metadata: { labels: { "app.kubernetes.io/name": "x" }, name: "db" },
        spec: { ports: [{ port: 5432, name: "postgres" }] },
      },
    ],
  ])("writes what sorted copies through JSON.stringify wrote: %s", (_name, value) => {
    expect(stableJson(value)).toBe(before(value));
  });

  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["a function", () => 1],
  ])("gives undefined for %s, as JSON.stringify", (_name, value) => {
    expect(stableJson(value)).toBeUndefined();
  });

  it("writes a long text as its digest", () => {
    const digest = createHash("sha256").update(LONG).digest("hex");
    expect(stableJson({ script: LONG })).toBe(`{"script":"sha256:${digest}"}`);
  });

  it("tells long texts apart by their content, however many it has seen", () => {
    const texts = Array.from({ length: LONG_TEXT_LIMIT + 3 }, (_, i) => `${LONG}${i}`);
    const first = texts.map(t => stableJson(t));
    expect(new Set(first).size).toBe(texts.length);
    expect(texts.map(t => stableJson(t))).toEqual(first);
    expect(stableJson(LONG)).not.toBe(stableJson(`${LONG} `));
  });
});

describe("contentDigest", () => {
  it("is the sha256 of the stable JSON: key order does not matter", () => {
    expect(contentDigest({ a: 1, b: [1, 2] })).toBe(contentDigest({ b: [1, 2], a: 1 }));
    expect(contentDigest({ a: 1 })).toBe(createHash("sha256").update('{"a":1}').digest("hex"));
  });

  it("keeps every child's applied hash but the config ConfigMap's, the one with long texts", () => {
    const spec = {
      instances: 3,
      backup: {
        objectStore: { endpoint: "s3:9000", bucket: "b", credentials: { secretName: "s" } },
      },
    };
    const children = desiredChildren(
      input(spec as never),
      { superuser: "s", app: "a" },
      { tls: fixtureTls() },
      "pepr-system",
    );
    const changed = children
      .filter(
        c =>
          contentDigest(c) !==
          createHash("sha256")
            .update(before(c) ?? "")
            .digest("hex"),
      )
      .map(c => `${c.kind} ${c.metadata.name}`);
    expect(changed).toEqual([`ConfigMap ${DB_NAME}-config`]);
  });
});
