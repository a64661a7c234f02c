/**
 * The leadership fence of the SQL edge, like guardWrites for the Kubernetes API
 * (cluster/write-wrappers.ts): every InstanceSql method is listed as a read or a write, the map
 * is checked by the compiler against the interface, and a write made by a process that no longer
 * leads fails with NotLeaderError before a connection is opened. A deposed leader therefore never
 * promotes, sets a password, rewrites postgresql.auto.conf or a passfile, or asks for a repair,
 * whichever step it is in when the lease goes.
 */
import { AccessMap, fenceWrites } from "../lib/fence";
import type { InstanceSql } from "./types";

/** Every SQL operation, read or write (a method missing here does not compile). */
export const INSTANCE_SQL_METHODS = {
  probeInstance: "read",
  acceptsPassword: "read",
  promote: "write",
  checkpoint: "write",
  setRolePassword: "write",
  writePassfile: "write",
  requestRepair: "write",
  reloadConfiguration: "write",
  ensureRoles: "write",
  applyParameters: "write",
} as const satisfies AccessMap<InstanceSql>;

/** `sql` whose writes fail with NotLeaderError unless this process leads at the moment of the call. */
export const guardSql = (sql: InstanceSql, isLeader: () => boolean): InstanceSql =>
  fenceWrites(sql, INSTANCE_SQL_METHODS, isLeader);
