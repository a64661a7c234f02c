/**
 * PostgreSQL write-ahead-log positions (pg_lsn). The text form is two hexadecimal halves of a
 * 64-bit byte position, "16/B374D848" = 0x16_B374D848. Numbers would lose precision past 2^53,
 * so positions are bigints; lag is a byte difference, as pg_wal_lsn_diff() computes it.
 */

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** "16/B374D848" → 97500059720n. Throws on anything PostgreSQL's pg_lsn input would refuse. */
export function parseLsn(text: string): bigint {
  const m = LSN_TEXT.exec(text);
  if (!m) throw new Error(`invalid LSN ${JSON.stringify(text)}: expected two hex numbers as X/Y`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

/** Bytes from `b` to `a` (negative when `a` is behind), like pg_wal_lsn_diff(a, b). */
export function lsnDiff(a: string, b: string): bigint {
  return parseLsn(a) - parseLsn(b);
}

/**
 * How far `replica` is behind `primary`, in bytes, never negative: two probes are not taken at
 * the same instant, so a replica read after the primary may look slightly ahead of it.
 */
export function lagBytes(primary: string, replica: string): bigint {
  const d = lsnDiff(primary, replica);
  return d > 0n ? d : 0n;
}
