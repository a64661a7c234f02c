/**
 * Growing spec.storage.size expands every instance's data claim (reconcile/children.ts). The
 * apiserver allows that only for a claim a StorageClass provisioned, and only when that class
 * says `allowVolumeExpansion: true`. A growth the claims cannot take is refused here, naming the
 * claim and its class, rather than admitted and then failing at every reconcile.
 *
 * Reads that fail or are slow admit: the webhook must answer, and reconcile still reports the
 * apiserver's own reason (a class changed between admission and reconcile, too).
 */
import { isDataClaimOf } from "../api/names";
import { CheckedDatabase, Denial, deny } from "./rules/types";
import { quantityBelow } from "./rules/util";

/** What the check reads; `undefined` means the read failed and nothing is concluded. */
export interface ClaimReader {
  /** The claims labelled with the Database's name, with their storageClassName ("" for none). */
  claimsOf(namespace: string, db: string): Promise<{ name: string; class: string }[] | undefined>;
  /** A StorageClass's allowVolumeExpansion; null when the class does not exist. */
  allowsExpansion(storageClass: string): Promise<boolean | null | undefined>;
}

const FIELD = "spec.storage.size";

/** Why one claim cannot grow, or undefined (it can, or nothing can be told). */
async function claimProblem(
  claim: { name: string; class: string },
  reader: ClaimReader,
): Promise<string | undefined> {
  if (claim.class === "")
    return `claim ${claim.name} has no StorageClass (a volume bound by hand cannot be expanded)`;
  const allows = await reader.allowsExpansion(claim.class);
  if (allows === null) return `claim ${claim.name}'s StorageClass "${claim.class}" does not exist`;
  if (allows === false)
    return `claim ${claim.name}'s StorageClass "${claim.class}" does not allow volume expansion (allowVolumeExpansion is not true)`;
  return undefined;
}

/** Denials of an update that grows the storage of `db`'s instances. Never throws. */
export async function storageGrowthDenials(
  db: CheckedDatabase,
  old: CheckedDatabase | undefined,
  namespace: string,
  name: string,
  reader: ClaimReader,
): Promise<Denial[]> {
  const [size, before] = [db.spec.storage.size, old?.spec.storage.size];
  if (!quantityBelow(before, size)) return [];
  // Labelled with this Database's name; the prefix leaves out the claim of an earlier version's
  // backup volume, which storage.size never grew.
  const claims = await reader.claimsOf(namespace, name);
  const data = (claims ?? []).filter(c => isDataClaimOf(name, c.name));
  const problems = (await Promise.all(data.map(c => claimProblem(c, reader)))).filter(
    (p): p is string => p !== undefined,
  );
  if (problems.length === 0) return [];
  return [
    deny(
      FIELD,
      `cannot grow from ${before} to ${size}: ${problems.join("; ")}; the claims would stay ${before}`,
    ),
  ];
}
