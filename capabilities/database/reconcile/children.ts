/**
 * Converging children: create what is missing, update what changed or drifted, prune what must no
 * longer exist — and never touch an object with one of our names that this Database doesn't own.
 */
import { equals } from "ramda";
import { Database } from "../api/database";
import { LABEL_DATABASE, isDataClaimOf } from "../api/names";
import { Cluster, KubeObject, ObjectRef, describeRef, refOf } from "../cluster/cluster";
import { ChildChange, childChange } from "./diff";
import { ReconcileError, isAlreadyExists } from "../lib/errors";
import { createdFieldsEntry } from "../cluster/field-manager";
import { isOwnedBy } from "./ownership";

export interface ChildResult {
  ref: ObjectRef;
  change: ChildChange | "deleted";
  /** The live resourceVersion found as wanted (change "none"). */
  version?: string;
}

/** Fields of a StatefulSet the apiserver refuses to change: a change means recreating it. */
const IMMUTABLE_STS_FIELDS = [
  "selector",
  "serviceName",
  "podManagementPolicy",
  "volumeClaimTemplates",
] as const;

type StsSpec = Record<(typeof IMMUTABLE_STS_FIELDS)[number], unknown> & {
  volumeClaimTemplates?: {
    metadata?: { name?: string };
    spec?: { resources?: { requests?: { storage?: string } } };
  }[];
};

const stsSpec = (obj: KubeObject): StsSpec => (obj.spec ?? {}) as StsSpec;

/** Desired immutable fields that differ from the live StatefulSet (compared on what we set). */
function immutableChanges(desired: KubeObject, live: KubeObject): string[] {
  return IMMUTABLE_STS_FIELDS.filter(field => {
    const want = stsSpec(desired)[field];
    const have = stsSpec(live)[field];
    if (field !== "volumeClaimTemplates") return want !== undefined && !equals(want, have);
    const sizes = (s: StsSpec) =>
      (s.volumeClaimTemplates ?? []).map(t => [
        t.metadata?.name,
        t.spec?.resources?.requests?.storage,
      ]);
    return !equals(sizes(stsSpec(desired)), sizes(stsSpec(live)));
  });
}

const claimSize = (sts: KubeObject): string | undefined =>
  stsSpec(sts).volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;

/**
 * Storage growth: expand each instance's claim, then recreate the StatefulSet without its pods
 * (orphan delete), because volumeClaimTemplates are immutable. Pods keep running throughout.
 */
async function recreateStatefulSet(
  cluster: Cluster,
  db: Database,
  desired: KubeObject,
  live: KubeObject,
): Promise<void> {
  const size = claimSize(desired);
  if (size && size !== claimSize(live)) {
    const claims = await cluster.list(
      { apiVersion: "v1", kind: "PersistentVolumeClaim" },
      live.metadata?.namespace ?? "",
      {
        [LABEL_DATABASE]: db.metadata?.name ?? "",
      },
    );
    // Only the instances' data claims (`pgdata-<sts>-<ordinal>`), never the backup volume.
    const sts = live.metadata?.name ?? "";
    for (const claim of claims.filter(c => isDataClaimOf(sts, c.metadata?.name ?? ""))) {
      await cluster.resizeClaim(refOf(claim), size);
    }
  }
  await cluster.delete(refOf(live), { orphan: true });
}

/**
 * Applies one desired child (already stamped with its applied hash) when it differs. A child the
 * cache doesn't hold is created: one request, which fails when something of that name exists
 * without our label; only then is it read, to tell our own (its labels removed by hand: they are
 * put back, nothing else, and the pass fails so that the next one builds from it) from someone
 * else's (never touched).
 *
 * `verifiedAt`: the resourceVersion at which this same desired object was found as wanted; the
 * live object still at that version is as wanted, with nothing to compare.
 */
export async function convergeChild(
  cluster: Cluster,
  db: Database,
  desired: KubeObject,
  verifiedAt?: string,
): Promise<ChildResult> {
  const ref = refOf(desired);
  const cached = await cluster.get(ref, { missingIsAbsent: true });
  const version = cached?.metadata?.resourceVersion;
  if (verifiedAt !== undefined && version === verifiedAt) return { ref, change: "none", version };
  const live = cached ?? (await createOrFind(cluster, desired));
  if (live === "created") return { ref, change: "create" };
  if (!isOwnedBy(live, db)) {
    throw new ReconcileError(
      "OwnershipConflict",
      `${describeRef(ref)} exists but is not owned by Database ${db.metadata?.name}; pgkeeper will not touch it (delete or rename it)`,
    );
  }
  if (!cached) return restoreLabels(cluster, desired);
  const change = childChange(desired, live);
  if (change === "none") return { ref, change, version };
  await writeChild(cluster, db, desired, live);
  return { ref, change };
}

/**
 * Ours, unseen by the cache: its labels were removed. What this pass built assumed it absent (new
 * credentials, a new CA): only the labels go back, and the next pass works from it.
 */
async function restoreLabels(cluster: Cluster, desired: KubeObject): Promise<never> {
  const ref = refOf(desired);
  await cluster.patchLabels(ref, desired.metadata?.labels ?? {});
  throw new ReconcileError(
    "LabelsRestored",
    `${describeRef(ref)} had lost pgkeeper's labels (removed by hand?); they are back, and the next pass reconciles it from what it holds`,
  );
}

/** Applies `desired` over `live`; a StatefulSet whose immutable fields change is recreated. */
async function writeChild(
  cluster: Cluster,
  db: Database,
  desired: KubeObject,
  live: KubeObject,
): Promise<void> {
  if (desired.kind === "StatefulSet" && immutableChanges(desired, live).length > 0) {
    await recreateStatefulSet(cluster, db, desired, live);
    await cluster.apply(desired); // recreated: applied from the start, nothing to adopt
    return;
  }
  const created = createdFieldsEntry(live);
  if (created !== undefined) await cluster.adoptCreatedFields(refOf(desired), created);
  await cluster.apply(desired);
}

/** Creates `desired`, or reads what holds its name already. */
async function createOrFind(
  cluster: Cluster,
  desired: KubeObject,
): Promise<KubeObject | "created"> {
  try {
    await cluster.create(desired);
    return "created";
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const found = await cluster.get(refOf(desired));
  if (found) return found;
  throw new Error(
    `${describeRef(refOf(desired))} was deleted between its create and its read; the next pass creates it`,
  );
}

/** Deletes children that must not exist for this spec, if (and only if) we own them. */
export async function pruneChild(
  cluster: Cluster,
  db: Database,
  ref: ObjectRef,
): Promise<ChildResult> {
  // Only an object we own (and so labelled, hence cached) is ever pruned: found among the
  // Database's objects of its kind, from the cache once that kind is listed. Before then the
  // list goes to the apiserver: a LIST, which the operator may make of every kind it prunes,
  // where a GET it may not (CronJobs: list, watch and delete only; a pass that ran before the
  // CronJob informer had listed was refused, in CI).
  const mine = await cluster.list(ref, ref.namespace, {
    [LABEL_DATABASE]: db.metadata?.name ?? "",
  });
  const live = mine.find(o => o.metadata?.name === ref.name);
  if (!live || !isOwnedBy(live, db)) return { ref, change: "none" };
  await cluster.delete(ref);
  return { ref, change: "deleted" };
}
