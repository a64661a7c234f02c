/**
 * The oracle's readers on the edges the fuzz meets, each as its source (apimachinery, kube-openapi,
 * guc.c, distribution/reference) has it. Where the fuzz and the product disagreed, the reading
 * the report relies on is pinned here.
 */
import { isDateTime } from "../../../bench/fuzz/oracle/bootstrap";
import { enumAccepts, parseBoolean, parseInt32 } from "../../../bench/fuzz/oracle/guc";
import { readImage, tagMajor } from "../../../bench/fuzz/oracle/image";
import { compare, parseQuantity, q } from "../../../bench/fuzz/oracle/quantity";

it("reads quantities as ParseQuantity does", () => {
  expect(parseQuantity("1e1.5")).toBeUndefined();
  expect(parseQuantity("1K")).toBeUndefined();
  expect(parseQuantity("")).toBeUndefined();
  expect(compare(q("5."), q("5"))).toBe(0);
  expect(compare(q(".5"), q("500m"))).toBe(0);
  expect(compare(q("+1Gi"), q("1073741824"))).toBe(0);
  expect(compare(q("0.25Gi"), q("256Mi"))).toBe(0);
  expect(compare(q("1E3"), q("1k"))).toBe(0);
  // Rounded up to a nano unit, never down to zero.
  expect(compare(q("1e-12"), q("1n"))).toBe(0);
  expect(compare(q("70368744177665"), q("64Ti"))).toBe(1);
});

it("reads date-times as the schema and then CEL do", () => {
  expect(isDateTime("2026-12-02T10:00:00Z")).toBe(true);
  expect(isDateTime("2026-12-02T10:00:00.123456789+01:00")).toBe(true);
  expect(isDateTime("2028-02-29T10:00:00Z")).toBe(true);
  // The format check alone takes lower case; CEL's conversion (Go's RFC 3339) does not.
  expect(isDateTime("2026-12-02t10:00:00z")).toBe(false);
  expect(isDateTime("2026-02-29T10:00:00Z")).toBe(false);
  expect(isDateTime("2026-12-02T23:59:60Z")).toBe(false);
  expect(isDateTime("2026-12-02T10:00:00")).toBe(false);
  expect(isDateTime("2026-12-02 10:00:00Z")).toBe(false);
});

it("reads parameter values as guc.c does", () => {
  expect(parseInt32("0x10")).toEqual({ ok: true, value: 16 });
  expect(parseInt32("010")).toEqual({ ok: true, value: 8 });
  expect(parseInt32(" 100")).toEqual({ ok: true, value: 100 });
  // strtol (base 0) reads "0" and stops at the 8: no fraction follows, "8.5" is garbage.
  expect(parseInt32("08.5").ok).toBe(false);
  // C's isspace knows no no-break space.
  expect(parseInt32("\u00a0100").ok).toBe(false);
  expect(parseInt32("1.5GB", "kB")).toEqual({ ok: true, value: 1572864 });
  expect(parseBoolean("tr")).toBe(true);
  expect(parseBoolean(" on")).toBeUndefined();
  // Enums match whole names only (config_enum_lookup_by_name), hidden boolean spellings aside.
  expect(enumAccepts(["off", "on", "try"], "tr")).toBe(false);
  expect(enumAccepts(["off", "on", "try"], "yes")).toBe(true);
});

it("reads image references and the major their tag names", () => {
  expect(readImage("postgres:16@sha256:" + "a".repeat(64)).ok).toBe(true);
  expect(readImage("[::1]:5000/postgres:16").ok).toBe(true);
  expect(readImage("postgres@sha256:abc").ok).toBe(false);
  expect(readImage("Postgres:16").ok).toBe(false);
  expect(tagMajor("16.4-bookworm")).toEqual({ kind: "major", major: "16", plain: true });
  expect(tagMajor("16beta1")).toEqual({ kind: "major", major: "16", plain: false });
  expect(tagMajor("9.6")).toEqual({ kind: "major", major: "9.6", plain: false });
  expect(tagMajor("160").kind).toBe("none");
  expect(tagMajor("latest").kind).toBe("none");
});
