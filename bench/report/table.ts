/**
 * Markdown tables laid out exactly as Prettier lays them out (columns padded to their widest
 * cell, at least 3), so that generated text survives `prettier --check docs` unchanged and the
 * drift test can compare it byte for byte.
 */

export type Align = "left" | "right";

export interface Column {
  header: string;
  align?: Align;
}

/** Left-aligned columns with these headers. */
export const columns = (...headers: string[]): Column[] => headers.map(header => ({ header }));

/** Display width: every character these tables use (×, –, ¹, …) is one column wide. */
const width = (s: string): number => [...s].length;

const pad = (s: string, w: number, align: Align): string =>
  align === "right" ? " ".repeat(w - width(s)) + s : s + " ".repeat(w - width(s));

const rule = (w: number, align: Align): string =>
  align === "right" ? `${"-".repeat(w - 1)}:` : "-".repeat(w);

export function table(columns: Column[], rows: string[][]): string {
  const aligns = columns.map(c => c.align ?? "left");
  const widths = columns.map((c, i) =>
    Math.max(3, width(c.header), ...rows.map(r => width(r[i] ?? ""))),
  );
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    line(columns.map((c, i) => pad(c.header, widths[i], aligns[i]))),
    line(widths.map((w, i) => rule(w, aligns[i]))),
    ...rows.map(r => line(widths.map((w, i) => pad(r[i] ?? "", w, aligns[i])))),
  ].join("\n");
}
