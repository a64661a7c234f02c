/**
 * The data claims step: every instance's data volume claim is owned by its Database, so that only
 * deleting the Database deletes data. The StatefulSet retains its claims when it is deleted
 * (specs/statefulset.ts): after a `kubectl delete sts`, the next pass recreates it and its pods
 * mount the same claims again. It runs before the children step, so a Database from before this
 * rule has its claims owned before its StatefulSet stops owning them.
 */
import { Database } from "../api/database";
import { LABEL_DATABASE, isDataClaimOf } from "../api/names";
import { OWNER_API_VERSION, OWNER_KIND, namesOf, ownerReference } from "../specs/meta";
import { KubeObject, OwnerReference, isTerminating, refOf } from "../cluster/cluster";
import type { Pass, StepResult } from "./pass";

const CLAIM = { apiVersion: "v1", kind: "PersistentVolumeClaim" } as const;

const time = (t: string | Date | undefined): number => (t ? new Date(t).getTime() : NaN);

/**
 * The data claims of this Database's StatefulSet it does not own yet, and may: never one being
 * deleted, one another Database owns (a Database of the same name deleted before this one was
 * created), or one created before this Database (it cannot be this Database's data).
 */
export function claimsToOwn(claims: KubeObject[], db: Database, statefulSet: string): KubeObject[] {
  const uid = db.metadata?.uid;
  const created = time(db.metadata?.creationTimestamp);
  return claims.filter(claim => {
    const owners = claim.metadata?.ownerReferences ?? [];
    const ofOtherDatabase = owners.some(
      o => o.apiVersion === OWNER_API_VERSION && o.kind === OWNER_KIND && o.uid !== uid,
    );
    return (
      isDataClaimOf(statefulSet, claim.metadata?.name ?? "") &&
      !owners.some(o => o.uid === uid) &&
      !ofOtherDatabase &&
      !isTerminating(claim) &&
      !(time(claim.metadata?.creationTimestamp) < created)
    );
  });
}

/**
 * The owner reference a data claim gets: not a controller one, since the StatefulSet controller
 * may still hold that (a Database from before this rule, until its policy says Retain).
 */
export const claimOwner = (db: Database): OwnerReference => ({
  ...ownerReference(db),
  controller: false,
});

export async function dataClaimsStep({ deps, db, input }: Pass): Promise<StepResult> {
  try {
    const claims = await deps.cluster.list(CLAIM, db.metadata?.namespace ?? "", {
      [LABEL_DATABASE]: db.metadata?.name ?? "",
    });
    for (const claim of claimsToOwn(claims, db, namesOf(input).statefulSet))
      await deps.cluster.addOwnerReference(refOf(claim), claimOwner(db));
    return {};
  } catch (failure) {
    return { failure };
  }
}
