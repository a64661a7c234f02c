/**
 * What the HA step remembers across reconciles in this operator process, per Database, in one
 * slice per owner: each slice is handed to the one file that writes it, and nothing else of the
 * memory reaches that file. Losing it on restart costs one re-application of the parameters and
 * passfiles, one repeated Event, and 30 s more before a stuck replica is repaired. It is bounded:
 * pod entries go with their pods, instance names are at most spec.instances, a Database's entry
 * goes with it. (Reconcile's own memory, the passwords in use, is reconcile/passwords.ts's.)
 */
import type { StuckMemory } from "./stuck-replica";
import { PerDatabase } from "../lib/per-database";

export interface PendingAfterReload {
  pending: string[];
  /** The postmaster that answered the reload: a restart loads the file, and the entry lapses. */
  postmasterStartTime?: string;
}

/** live-parameters.ts: per pod UID, the parameter set last applied and what its reload left pending. */
export interface ParametersMemory {
  applied: Map<string, string>;
  pendingAfterReload: Map<string, PendingAfterReload>;
}

export interface DatabaseMemory {
  /** ha-step.ts: since when (ms) the primary has been seen failing. */
  failover: { downSince?: number };
  /** ha-status.ts: when status last got fresh LSN/lag figures (ms). */
  progress: { writtenAt?: number };
  parameters: ParametersMemory;
  /** announceOnce (step-input.ts), per Event reason: the message last announced. */
  announced: Map<string, string>;
  /** second-primary.ts, per pod UID of an instance other than the primary: since when (ms) seen writable. */
  writableSince: Map<string, number>;
  /** stuck-replica.ts and repair-replica.ts: replicas seen not following, and their repairs. */
  repairs: StuckMemory;
  /** passfile.ts, per pod UID: the fingerprint of the password its replication passfile got. */
  passfiles: Map<string, string>;
  /**
   * ha-step.ts: a probe has logged in as pgkeeper_monitor. From then on the role exists in this
   * database cluster, and a server refusing it is lying: no target falls back to the superuser.
   */
  monitor: { loggedIn: boolean };
}

const emptyMemory = (): DatabaseMemory => ({
  failover: {},
  progress: {},
  parameters: { applied: new Map(), pendingAfterReload: new Map() },
  announced: new Map(),
  writableSince: new Map(),
  repairs: { notFollowingSince: new Map(), repairedAt: new Map() },
  passfiles: new Map(),
  monitor: { loggedIn: false },
});

/** The per-pod maps, keyed by pod UID: their entries go with their pods. */
const perPod = (m: DatabaseMemory): Map<string, unknown>[] => [
  m.parameters.applied,
  m.parameters.pendingAfterReload,
  m.writableSince,
  m.repairs.notFollowingSince,
  m.passfiles,
];

export class HaMemory extends PerDatabase<DatabaseMemory> {
  /** The memory of one Database (`namespace/name`), created on first use. */
  override of(key: string): DatabaseMemory {
    let memory = super.of(key);
    if (!memory) {
      memory = emptyMemory();
      this.remember(key, memory);
    }
    return memory;
  }

  /** Drops the entries of pods that no longer exist (by UID). */
  keepPods(key: string, uids: ReadonlySet<string>): void {
    const memory = super.of(key);
    if (!memory) return;
    for (const map of perPod(memory))
      for (const uid of map.keys()) if (!uids.has(uid)) map.delete(uid);
  }
}
