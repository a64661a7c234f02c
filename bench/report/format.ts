/** How figures read in the docs: units, fixed decimals, thousands apart, a dash for none. */

export const NONE = "–";

const known = (n: number | null | undefined): n is number =>
  n !== null && n !== undefined && Number.isFinite(n);

/** `n` with `digits` decimals, or a dash when there is no figure. */
export const fixed = (n: number | null | undefined, digits = 1): string =>
  known(n) ? n.toFixed(digits) : NONE;

/** A count, in groups of three from 10 000 on ("96 528"), as the docs have always written. */
export function count(n: number | null | undefined): string {
  if (!known(n)) return NONE;
  const s = String(Math.round(n));
  return Math.abs(n) < 10_000 ? s : s.replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

export const seconds = (n: number | null | undefined, digits = 1): string =>
  known(n) ? `${n.toFixed(digits)} s` : NONE;

export const ms = (n: number | null | undefined, digits = 1): string =>
  known(n) ? `${n.toFixed(digits)} ms` : NONE;

export const mib = (n: number | null | undefined, digits = 1): string =>
  known(n) ? `${n.toFixed(digits)} MiB` : NONE;

/** "p50 / p99 ms" in one cell. */
export const pair = (a: number | null | undefined, b: number | null | undefined, digits = 1) =>
  known(a) || known(b) ? `${fixed(a, digits)} / ${fixed(b, digits)} ms` : NONE;

/** A ratio as the docs write it: "0.31×". */
export const times = (n: number | null | undefined, digits = 2): string =>
  known(n) ? `${n.toFixed(digits)}×` : NONE;
