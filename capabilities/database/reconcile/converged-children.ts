/**
 * What the last pass learnt of each Database's children, so that the next pass with the same
 * inputs does not do it again:
 * - the digest of everything the children were built from (the builders are pure, and
 *   BuildInput's type lets them read nothing else);
 * - each child's ref and applied hash (the same inputs build the same objects, so the same hashes);
 * - each child that pass found as wanted, with its live resourceVersion.
 *
 * A pass with the same inputs whose cache holds every child at its remembered version would build
 * the same objects, hash them the same and compare them with the same live objects: it does none
 * of it. A child at another version (someone wrote it) is compared again, against a desired
 * object stamped with its remembered hash. Hashing was 30% of a converge of 1,000 Databases.
 *
 * One entry per Database, a few hundred bytes. Forgotten with the Database and when leadership is
 * lost (reconcile/deps.ts), like every memory of a leadership.
 */
import { contentDigest } from "../lib/content-hash";
import { Cluster, KubeObject, ObjectRef, refOf } from "../cluster/cluster";
import { ANNOTATION_APPLIED_HASH } from "./diff";
import { PerDatabase } from "../lib/per-database";
import type { BuildInput, KeyMaterial, Passwords } from "../specs";

export interface ConvergedChild {
  ref: ObjectRef;
  hash: string;
  /** The live resourceVersion the pass found as wanted; absent when it wrote the child. */
  verifiedAt?: string;
}

export interface Converged {
  inputs: string;
  children: ConvergedChild[];
}

/** The digest of what a Database's children are built from. Holds no secret: only a digest. */
export function inputsDigest(
  input: BuildInput,
  passwords: Passwords,
  keys: KeyMaterial,
  operatorNamespace: string,
): string {
  const { name, namespace, uid } = input.db.metadata ?? {};
  const db = {
    name,
    namespace,
    uid,
    initializedAt: input.db.status?.initializedAt,
    restartedAt: input.db.status?.restart?.requestedAt,
  };
  return contentDigest({ ...input, db, passwords, keys, operatorNamespace });
}

export const refKey = (ref: ObjectRef): string =>
  `${ref.apiVersion}/${ref.kind}/${ref.namespace}/${ref.name}`;

/** What was learnt of each Database's children; `of(key)` is read only through `learnt`. */
export class ConvergedChildren extends PerDatabase<Converged> {
  /** What was learnt of `key`'s children, when built from the same inputs. */
  learnt(key: string, inputs: string): Converged | undefined {
    const found = this.of(key);
    return found?.inputs === inputs ? found : undefined;
  }
}

/** Every child learnt as wanted is still at the version it was found at (the cache says so). */
export async function allStillAsVerified(cluster: Cluster, learnt: Converged): Promise<boolean> {
  for (const child of learnt.children) {
    if (child.verifiedAt === undefined) return false;
    const live = await cluster.get(child.ref, { missingIsAbsent: true });
    if (live?.metadata?.resourceVersion !== child.verifiedAt) return false;
  }
  return true;
}

/** The learnt children, when they are `children` (by ref, in order). */
export const knownChildren = (
  learnt: Converged | undefined,
  children: KubeObject[],
): ConvergedChild[] | undefined =>
  learnt &&
  learnt.children.length === children.length &&
  learnt.children.every((c, i) => refKey(c.ref) === refKey(refOf(children[i])))
    ? learnt.children
    : undefined;

/** What a pass learnt: each child's hash, and the version of each it found as wanted. */
export const learntFrom = (
  inputs: string,
  stamped: KubeObject[],
  results: { change: string; version?: string }[],
): Converged => ({
  inputs,
  children: stamped.map((child, i) => ({
    ref: refOf(child),
    hash: child.metadata?.annotations?.[ANNOTATION_APPLIED_HASH] ?? "",
    ...(results[i]?.change === "none" && results[i].version !== undefined
      ? { verifiedAt: results[i].version }
      : {}),
  })),
});
