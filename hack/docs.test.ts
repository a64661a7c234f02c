/**
 * The docs hold together: docs/adr/README.md lists every ADR, and every relative link in
 * README.md and docs/ names a file that exists (anchors are not checked).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(__dirname, "..");
const ADR_DIR = join(ROOT, "docs", "adr");

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** Targets of inline and reference links that stay in the repository, without their #anchor. */
export function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  const inline = [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(m => m[1]);
  const reference = [...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map(m => m[1]);
  return [...inline, ...reference]
    .filter(target => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map(target => decodeURIComponent(target.split("#")[0]));
}

describe("docs", () => {
  it("docs/adr/README.md links every docs/adr/NNNN-*.md", () => {
    const index = readFileSync(join(ADR_DIR, "README.md"), "utf8");
    const adrs = readdirSync(ADR_DIR).filter(name => /^\d{4}-.+\.md$/.test(name));
    expect(adrs.length).toBeGreaterThan(0);
    expect(adrs.filter(name => !relativeLinks(index).includes(name))).toEqual([]);
  });

  it("relative links in README.md and docs/ point to files that exist", () => {
    const files = [join(ROOT, "README.md"), ...markdownUnder(join(ROOT, "docs"))];
    const broken = files.flatMap(file =>
      relativeLinks(readFileSync(file, "utf8"))
        .filter(target => !existsSync(join(dirname(file), target)))
        .map(target => `${relative(ROOT, file)}: ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it("reads links, skipping URLs, anchors and code", () => {
    const text = [
      'See [api](api.md#status), [ADR 1](adr/0001-x.md "title") and [site](https://x.dev).',
      "[top](#quick-start) `[not](a-link.md)`",
      "```",
      "[neither](in-code.md)",
      "```",
      "[ref]: ../README.md",
    ].join("\n");
    expect(relativeLinks(text)).toEqual(["api.md", "adr/0001-x.md", "../README.md"]);
  });
});
