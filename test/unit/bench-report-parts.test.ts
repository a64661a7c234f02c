/** The pieces bench/report builds sections from: tables, numbers, markers, the envelope. */
import { envelopeErrors } from "../../bench/report/envelope";
import { count, fixed, pair, times } from "../../bench/report/format";
import {
  beginMarker,
  endMarker,
  generatedBody,
  replaceGenerated,
} from "../../bench/report/markers";
import { table } from "../../bench/report/table";

describe("table", () => {
  it("pads every column to its widest cell (3 at least), right-aligned where asked", () => {
    expect(
      table(
        [{ header: "a" }, { header: "count", align: "right" }],
        [
          ["×", "1"],
          ["long cell", "12345"],
        ],
      ),
    ).toBe(
      [
        "| a         | count |",
        "| --------- | ----: |",
        "| ×         |     1 |",
        "| long cell | 12345 |",
      ].join("\n"),
    );
  });
});

describe("numbers", () => {
  it.each<[string, string, string]>([
    ["count below 10 000", count(9452), "9452"],
    ["count from 10 000", count(96528), "96 528"],
    ["count of a million", count(1234567), "1 234 567"],
    ["count of nothing", count(null), "–"],
    ["fixed", fixed(3.14159, 2), "3.14"],
    ["fixed NaN", fixed(NaN), "–"],
    ["pair", pair(1, null), "1.0 / – ms"],
    ["pair of nothing", pair(null, undefined), "–"],
    ["times", times(0.3081), "0.31×"],
  ])("%s", (_what, actual, expected) => expect(actual).toBe(expected));
});

describe("markers", () => {
  const doc = `intro\n${beginMarker("x")}\n\nold\n\n${endMarker("x")}\noutro\n`;

  it("reads the body between a section's markers, trimmed", () => {
    expect(generatedBody(doc, "x")).toBe("old");
  });

  it("replaces it with a blank line each side and leaves the rest", () => {
    expect(replaceGenerated(doc, "x", "new\n")).toBe(
      `intro\n${beginMarker("x")}\n\nnew\n\n${endMarker("x")}\noutro\n`,
    );
  });

  it.each<[string, string]>([
    ["missing", "no markers"],
    ["twice", `${doc}${doc}`],
    ["without its end", `${beginMarker("x")}\nbody`],
  ])("refuses a section %s", (_what, text) => {
    expect(() => generatedBody(text, "x")).toThrow();
  });

  it("has the exact form the docs generator replaces", () => {
    expect(beginMarker("bench scale")).toBe(
      "<!-- generated: bench scale (npm run docs:generate; do not edit by hand) -->",
    );
    expect(endMarker("bench scale")).toBe("<!-- end generated: bench scale -->");
  });
});

describe("envelopeErrors", () => {
  const good = {
    bench: "probe",
    date: null,
    commit: null,
    machine: { nproc: 2, memoryBytes: null, kernel: null, cpu: null, loadAverage: null },
    parameters: {},
    figures: { rows: [] },
  };

  it.each<[string, unknown, string[]]>([
    ["a well-formed envelope", good, []],
    ["an array", [], ["not a JSON object"]],
    ["no machine", { ...good, machine: undefined }, ["machine is not an object"]],
    [
      "a machine with no cores",
      { ...good, machine: { ...good.machine, nproc: 0 } },
      ["machine.nproc is not a count"],
    ],
    ["a date that is a number", { ...good, date: 1 }, ["date is not a string or null"]],
    ["empty figures", { ...good, figures: {} }, ["no figures"]],
    ["a source that is no string", { ...good, source: 1 }, ["source is no string"]],
  ])("%s", (_what, value, errors) => expect(envelopeErrors(value, "probe")).toEqual(errors));
});
