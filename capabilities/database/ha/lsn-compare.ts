/**
 * LSN arithmetic for decisions: "16/B374D848" is two 32-bit hex halves of a 64-bit position.
 */
const LSN = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The LSN as a number of bytes; undefined for anything that is not an LSN. */
export function lsnBytes(lsn: string | undefined): bigint | undefined {
  const m = lsn ? LSN.exec(lsn) : null;
  if (!m) return undefined;
  return (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`);
}

/** Bytes `behind` is behind `ahead` (0 when not behind or unknown). */
export function lagBytes(ahead: string | undefined, behind: string | undefined): number {
  const a = lsnBytes(ahead);
  const b = lsnBytes(behind);
  if (a === undefined || b === undefined || b >= a) return 0;
  return Number(a - b);
}
