import { readFileSync } from "node:fs";
import { join } from "node:path";
import { begin, end, withSection } from "./markers";
import { SECTIONS } from "./sections";

const root = join(__dirname, "..", "..");

describe("generated sections of the docs", () => {
  it.each(SECTIONS.map(s => [`${s.file}: ${s.name}`, s] as const))(
    "%s is what its source renders (npm run docs:generate)",
    (_title, section) => {
      const doc = readFileSync(join(root, section.file), "utf8");
      expect(withSection(doc, section.name, section.render())).toBe(doc);
    },
  );

  it("replaces only between the markers, and refuses a file without them", () => {
    const doc = `a\n${begin("x")}\n\nold\n\n${end("x")}\nb\n`;
    expect(withSection(doc, "x", "new")).toBe(`a\n${begin("x")}\n\nnew\n\n${end("x")}\nb\n`);
    expect(() => withSection("no markers", "x", "new")).toThrow(/markers missing/);
  });
});
