/**
 * Passwords edited in their Secret (passwords.ts) reach PostgreSQL here, on the primary:
 *
 * - when this operator knows the password PostgreSQL has: ALTER ROLE ... PASSWORD with a SCRAM
 *   verifier of the new one (lib/scram.ts), logged in as the superuser (with its previous
 *   password when it is the superuser's that changes). The superuser's goes first;
 * - when nobody here knows it (the operator restarted after the edit): the new password counts
 *   as in use only if PostgreSQL accepts it (a rotation that finished just before the restart).
 *
 * A change made sets the password in use. One that fails leaves the previous password in use and
 * is reported; the Secret keeps the user's edit, since reconcile applies no child in that pass.
 * Standbys get the new role password through WAL; their replication passfile follows through the
 * HA step (ha/passfile.ts), so nothing restarts.
 */
import { Database } from "../api/database";
import { Cluster, KubeObject, podIP } from "../cluster/cluster";
import type { InstanceSql, InstanceTarget } from "../instance/types";
import type { Login, TargetOf } from "../instance/targets";
import { errorMessage } from "../lib/errors";
import { scramVerifier } from "../lib/scram";
import { APP_DATABASE, SUPERUSER } from "../specs/layout";
import type { FoundPasswords, PasswordChange } from "./passwords";

export interface RotationContext {
  cluster: Cluster;
  db: Database;
  sql?: Pick<InstanceSql, "setRolePassword" | "acceptsPassword">;
  pods: KubeObject[];
  primary: string;
  /** How to reach an instance (instance/targets.ts): TLS with the operator's certificate. */
  target: TargetOf;
}

/** What became of the edits: `found` with the passwords now in use, and the failures. */
export interface Rotation {
  found: FoundPasswords;
  failures: string[];
}

const keyOf = (c: PasswordChange): "superuser" | "app" =>
  c.role === SUPERUSER ? "superuser" : "app";

/** Makes one change on the primary at `host`; returns the Event message. */
async function apply(
  sql: NonNullable<RotationContext["sql"]>,
  at: (login: Login) => InstanceTarget,
  change: PasswordChange,
  superuser: string | undefined,
): Promise<string> {
  const as = (user: string, password: string) =>
    at({ user, password, database: user === SUPERUSER ? "postgres" : APP_DATABASE });
  if (change.from === undefined) {
    if (!(await sql.acceptsPassword(as(change.role, change.to))))
      throw new Error("PostgreSQL refuses it, and the password it has is unknown here");
    return `PostgreSQL already has the password in Secret ${change.secret} (role ${change.role})`;
  }
  const admin = change.role === SUPERUSER ? change.from : superuser;
  if (admin === undefined) throw new Error("the superuser's password is unknown");
  await sql.setRolePassword(as(SUPERUSER, admin), change.role, scramVerifier(change.to));
  return `The password of role ${change.role} is now the one in Secret ${change.secret}`;
}

export async function rotatePasswords(
  ctx: RotationContext,
  found: FoundPasswords,
): Promise<Rotation> {
  const next: FoundPasswords = { ...found, changes: [] };
  const failures: string[] = [];
  if (found.changes.length === 0) return { found: next, failures };
  const host = podIP(ctx.pods.find(p => p.metadata?.name === ctx.primary));
  const ordered = [...found.changes].sort((a, b) =>
    a.role === SUPERUSER ? -1 : b.role === SUPERUSER ? 1 : 0,
  );
  for (const change of ordered) {
    try {
      if (!ctx.sql) throw new Error("no SQL access to the instances");
      if (!host) throw new Error(`the primary ${ctx.primary} has no address`);
      const message = await apply(
        ctx.sql,
        login => ctx.target(host, login),
        change,
        next.superuser,
      );
      next[keyOf(change)] = change.to;
      await ctx.cluster.recordEvent(ctx.db, { type: "Normal", reason: "PasswordRotated", message });
    } catch (err) {
      next.changes.push(change);
      failures.push(`Secret ${change.secret}: ${errorMessage(err)}`);
    }
  }
  if (failures.length > 0)
    await ctx.cluster.recordEvent(ctx.db, {
      type: "Warning",
      reason: "PasswordRotationFailed",
      message: `The password edited in ${failures.join("; ")}; PostgreSQL keeps the previous one, tried again shortly`,
    });
  return { found: next, failures };
}
