/**
 * What the HA step remembers across reconciles in this operator process, per Database: when its
 * primary was first seen failing, when status last got fresh progress figures, which parameter
 * set each pod got (so a steady state makes no SQL writes), what each reload left pending, which
 * warnings were already raised, which replicas were seen not following (and when each was last
 * repaired), which passfiles got the current superuser password, and the passwords in use (reconcile puts a Secret deleted or edited by hand back from
 * them). Losing it on restart costs one re-application, one repeated Event, the chance to restore
 * such a Secret, and 30 s more before a stuck replica is repaired. It is bounded: pod entries go
 * with their pods, instance names are at most spec.instances, a Database's entry goes with it.
 */
import type { NotFollowingSince } from "./stuck-replica";

export interface PendingAfterReload {
  pending: string[];
  /** The postmaster that answered the reload: a restart loads the file, and the entry lapses. */
  postmasterStartTime?: string;
}

export interface DatabaseMemory {
  /** Since when (ms) the primary has been seen failing. */
  downSince?: number;
  /** When status last got fresh LSN/lag figures (ms). */
  progressWrittenAt?: number;
  /** Per pod UID: the parameter set last applied. */
  appliedParameters: Map<string, string>;
  /** Per pod UID: what the last reload left pending restart. */
  pendingAfterReload: Map<string, PendingAfterReload>;
  /** Per Event reason: the message last announced. */
  announced: Map<string, string>;
  /** Per pod UID of an instance other than the primary: since when (ms) it was seen writable. */
  writableSince: Map<string, number>;
  /** Per pod UID of a replica seen not following its primary: since when, replaying where. */
  notFollowingSince: Map<string, NotFollowingSince>;
  /** Per pod UID: the fingerprint of the password its replication passfile got from us. */
  passfileWritten: Map<string, string>;
  /** Per instance name: when it was last repaired (ms). */
  repairedAt: Map<string, number>;
  /** The passwords in use (reconcile restores a Secret deleted or edited from these). */
  passwords?: { superuser: string; app: string };
}

export class HaMemory {
  private readonly databases = new Map<string, DatabaseMemory>();

  /** The memory of one Database (`namespace/name`), created on first use. */
  of(key: string): DatabaseMemory {
    let memory = this.databases.get(key);
    if (!memory) {
      memory = {
        appliedParameters: new Map(),
        pendingAfterReload: new Map(),
        announced: new Map(),
        writableSince: new Map(),
        notFollowingSince: new Map(),
        passfileWritten: new Map(),
        repairedAt: new Map(),
      };
      this.databases.set(key, memory);
    }
    return memory;
  }

  /** Drops the entries of pods that no longer exist (by UID). */
  keepPods(key: string, uids: ReadonlySet<string>): void {
    const memory = this.databases.get(key);
    if (!memory) return;
    for (const perPod of [
      memory.appliedParameters,
      memory.pendingAfterReload,
      memory.writableSince,
      memory.notFollowingSince,
      memory.passfileWritten,
    ])
      for (const uid of perPod.keys()) if (!uids.has(uid)) perPod.delete(uid);
  }

  forget(key: string): void {
    this.databases.delete(key);
  }

  clear(): void {
    this.databases.clear();
  }

  /** Databases remembered (for tests of the bound). */
  get size(): number {
    return this.databases.size;
  }
}
