/**
 * What a reconcile pass runs on, and the two things only the composition root does with it:
 * fence every write by leadership (once, where the controller is built), and forget what was
 * remembered of a Database (deleted) or of every Database (leadership lost).
 */
import { Database } from "../api/database";
import { Cluster } from "../cluster/cluster";
import { guardWrites } from "../cluster/write-wrappers";
import type { HaDeps } from "../ha/step-input";
import { guardSql } from "../instance/guard-sql";
import type { InstancePort } from "../instance/port";
import { OperatorConfig } from "../lib/config";
import { ConvergedChildren } from "./converged-children";
import { PasswordMemory } from "./password-memory";

export interface Denial {
  field: string;
  message: string;
}

export interface ReconcileDeps {
  cluster: Cluster;
  config: OperatorConfig;
  now: () => Date;
  /** Same rules as the validating webhook: a Database admitted while it was down is still checked. */
  validate: (db: Database) => Denial[];
  newPassword?: () => string;
  /** The SQL edge and the instance monitor; absent in tests of the steps that need no PostgreSQL. */
  instances?: InstancePort;
  /** Failover, switchover, live parameters (with `instances`); absent: no HA. */
  ha?: HaDeps;
  /** The passwords in use per Database (a Secret deleted or edited by hand is put back from them). */
  passwords?: PasswordMemory;
  /** What the last pass learnt of each Database's children (absent: every pass builds and compares all). */
  converged?: ConvergedChildren;
}

/**
 * `deps` whose every write, through the Kubernetes API and over SQL, fails with NotLeaderError
 * unless this process leads at the moment of the call (lib/fence.ts): a reconcile still running
 * when leadership is lost cannot act on, whichever step it is in. No step checks leadership itself.
 */
export function fenced(deps: ReconcileDeps, isLeader: () => boolean): ReconcileDeps {
  const { instances } = deps;
  return {
    ...deps,
    cluster: guardWrites(deps.cluster, isLeader),
    ...(instances ? { instances: { ...instances, sql: guardSql(instances.sql, isLeader) } } : {}),
  };
}

/** A Database is gone: stop probing it and drop what was remembered of it. */
export function forgetDatabase(deps: ReconcileDeps, key: string): void {
  deps.instances?.monitor.untrack?.(key);
  deps.ha?.memory.forget(key);
  deps.passwords?.forget(key);
  deps.converged?.forget(key);
}

/** Leadership lost: stop probing old pod IPs, and forget what this leadership learnt. */
export function forgetAll(deps: ReconcileDeps): void {
  deps.instances?.monitor.untrackAll?.();
  deps.ha?.memory.clear();
  deps.passwords?.clear();
  deps.converged?.clear();
}
