/**
 * The children step: the TLS material (pki/), then every desired child applied where it differs
 * from the live one, then the children this spec must not have pruned, each kind of change
 * announced once. Secrets put back from the remembered passwords are announced last, whatever
 * happened to the rest.
 */
import { Database } from "../api/database";
import { Cluster, EventInput, KubeObject, describeRef } from "../cluster/cluster";
import { ensureBackupTls } from "../pki/backup-tls";
import { ensureTls } from "../pki/database-tls";
import {
  KeyMaterial,
  Passwords,
  desiredChildren,
  obsoleteChildren,
  postgresDnsNames,
  serverDnsNames,
} from "../specs";
import { ChildResult, convergeChild, pruneChild } from "./children";
import {
  ConvergedChild,
  allStillAsVerified,
  inputsDigest,
  knownChildren,
  learntFrom,
} from "./converged-children";
import { withAppliedHash } from "./diff";
import type { Pass, StepResult } from "./pass";
import { RestoredSecret } from "./passwords";

export async function childrenStep(
  pass: Pass,
  passwords: Passwords | undefined,
  restored: RestoredSecret[] = [],
  customQueries?: Record<string, unknown>,
): Promise<StepResult> {
  let result: StepResult = {};
  const withQueries = customQueries ? { ...pass, input: { ...pass.input, customQueries } } : pass;
  // Without both passwords the Secrets cannot be built: the passwords step reported why.
  if (passwords)
    result = await convergeChildren(withQueries, passwords).then(
      requeueAfterMs => (requeueAfterMs === undefined ? {} : { requeueAfterMs }),
      (failure: unknown) => ({ failure }),
    );
  await announceRestored(pass.deps.cluster, pass.db, restored);
  return result;
}

/** Applies what differs, prunes what must not exist; returns when to look again, if ever. */
async function convergeChildren(pass: Pass, passwords: Passwords): Promise<number | undefined> {
  const { deps, db, input } = pass;
  const { keys, lookAgainMs } = await ensureKeys(pass);
  const results: ChildResult[] = [];
  try {
    await applyUnlessConverged(pass, passwords, keys, results);
    const namespace = db.metadata?.namespace ?? "";
    for (const ref of obsoleteChildren(input))
      results.push(await pruneChild(deps.cluster, db, { ...ref, namespace }));
  } finally {
    // What was done is told even when the pass fails: the next pass finds those children as it
    // wants them, and would never say they were created.
    await announceChanges(deps.cluster, db, results);
  }
  return lookAgainMs;
}

/** The TLS material, kept while sound and issued anew otherwise (pki/). */
async function ensureKeys({
  deps,
  db,
  input,
}: Pass): Promise<{ keys: KeyMaterial; lookAgainMs?: number }> {
  const now = deps.now();
  const pki = await ensureTls(deps.cluster, db, postgresDnsNames(input), now);
  const backup = input.spec.backup?.objectStore
    ? await ensureBackupTls(deps.cluster, db, {
        ca: pki.ca,
        dnsNames: serverDnsNames(input),
        now,
        overlapMs: deps.config.trustOverlapSeconds * 1000,
      })
    : undefined;
  return { keys: { tls: pki.tls, backupTls: backup?.tls }, lookAgainMs: backup?.lookAgainMs };
}

/**
 * Builds the children and applies what differs, unless the last pass built them from the same
 * inputs and the cache holds each at the version it found as wanted (converged-children.ts).
 */
async function applyUnlessConverged(
  { deps, db, input, key }: Pass,
  passwords: Passwords,
  keys: KeyMaterial,
  results: ChildResult[],
): Promise<void> {
  const { operatorNamespace } = deps.config;
  const memory = deps.converged;
  const inputs = memory && inputsDigest(input, passwords, keys, operatorNamespace);
  const learnt = inputs ? memory.learnt(key, inputs) : undefined;
  if (learnt && (await allStillAsVerified(deps.cluster, learnt))) return;
  const children = desiredChildren(input, passwords, keys, operatorNamespace);
  const known = knownChildren(learnt, children);
  const stamped = children.map((child, i) => withAppliedHash(child, known?.[i].hash));
  await applyChildren(deps.cluster, db, stamped, known, results);
  if (memory && inputs) memory.remember(key, learntFrom(inputs, stamped, results));
}

/**
 * Two waves, each all at once: what the pods need (Secrets, ConfigMaps, the ServiceAccount, the
 * NetworkPolicy that guards them), then the StatefulSet and what follows it. A new Database's
 * children are a dozen creates: at once, they cost one round trip each wave.
 */
async function applyChildren(
  cluster: Cluster,
  db: Database,
  stamped: KubeObject[],
  known: ConvergedChild[] | undefined,
  results: ChildResult[],
): Promise<void> {
  const converge = (child: KubeObject, i: number) =>
    convergeChild(cluster, db, child, known?.[i].verifiedAt);
  const statefulSet = stamped.findIndex(c => c.kind === "StatefulSet");
  const split = statefulSet < 0 ? stamped.length : statefulSet;
  await settleWave(stamped.slice(0, split).map(converge), results);
  await settleWave(
    stamped.slice(split).map((child, i) => converge(child, split + i)),
    results,
  );
}

/**
 * Waits for every write of the wave, so none is still on its way when the pass reports, adds
 * what each that succeeded did to `done` (in order), then throws the first failure.
 */
async function settleWave<T>(work: Promise<T>[], done: T[]): Promise<void> {
  const settled = await Promise.allSettled(work);
  for (const s of settled) if (s.status === "fulfilled") done.push(s.value);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

/** One Event per kind of change, listing the objects: sparse, and readable in `kubectl describe`. */
async function announceChanges(
  cluster: Cluster,
  db: Database,
  results: ChildResult[],
): Promise<void> {
  const groups: [ChildResult["change"], EventInput["reason"], string][] = [
    ["create", "ChildrenCreated", "Created"],
    ["update", "ChildrenUpdated", "Updated to the new spec"],
    ["drift", "DriftRepaired", "Repaired (changed outside pgkeeper)"],
    ["deleted", "ChildrenDeleted", "Deleted (no longer needed)"],
  ];
  for (const [change, reason, verb] of groups) {
    const refs = results.filter(c => c.change === change).map(c => describeRef(c.ref));
    if (refs.length > 0)
      await cluster.recordEvent(db, {
        type: "Normal",
        reason,
        message: `${verb}: ${refs.join(", ")}`,
      });
  }
}

/** Best effort, like every Event: the Secret is back either way. */
async function announceRestored(
  cluster: Cluster,
  db: Database,
  restored: RestoredSecret[],
): Promise<void> {
  for (const r of restored)
    await cluster.recordEvent(db, {
      type: "Warning",
      reason: "SecretRestored",
      message: `Secret ${r.secret} was deleted: its password is back to the one PostgreSQL has (a new one would lock every client out; to rotate a password, edit it in the Secret)`,
    });
}
