import { SHARED_TEXT_MIN_LENGTH, SharedTexts } from "./shared-texts";

/** A long text built at run time: a fresh string each call, as JSON.parse makes them. */
const long = (tag: string): string => `${tag}:`.padEnd(SHARED_TEXT_MIN_LENGTH, "x");

describe("SharedTexts: one copy of each long text", () => {
  it.each<[string, string[], number]>([
    ["short texts are not remembered", ["a", "b".repeat(SHARED_TEXT_MIN_LENGTH - 1)], 0],
    ["equal long texts are remembered once", [long("script"), long("script")], 1],
    ["different long texts each once", [long("a"), long("b"), long("a")], 2],
    ["a full table starts anew", [long("a"), long("b"), long("c")], 1],
  ])("%s", (_, texts, remembered) => {
    const shared = new SharedTexts(2);
    for (const text of texts) expect(shared.share(text)).toBe(text);
    expect(shared.size).toBe(remembered);
  });

  it("leaves data without long values as it is, and copies data with them", () => {
    const shared = new SharedTexts();
    const small = { "pg_hba.conf": "host all all all scram-sha-256" };
    expect(shared.shareValues(small)).toBe(small);
    const scripts = { "entrypoint.sh": long("entrypoint"), "pg_hba.conf": "local all all peer" };
    const kept = shared.shareValues(scripts);
    expect(kept).not.toBe(scripts);
    expect(kept).toEqual(scripts);
    expect(shared.size).toBe(1);
  });
});
