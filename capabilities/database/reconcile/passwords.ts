/**
 * The credentials Secrets against the passwords PostgreSQL has. Secret data is generated once and
 * never regenerated: a new random value would lock every client out. Each Secret carries the
 * fingerprint of the password PostgreSQL has (ANNOTATION_PASSWORD_SHA256), so an edit of the
 * password is recognised even by an operator that started after it:
 *
 * - Secret deleted: put back with the password in use (remembered), or, for a Database that held
 *   data and an operator that never saw it, reported missing;
 * - password edited: a rotation (rotate-passwords.ts sets it in PostgreSQL, then the Secret gets
 *   its new fingerprint);
 * - otherwise: the Secret's password is the one in use.
 */
import { ownChildRead } from "../cluster/own-child-read";
import { randomBytes } from "node:crypto";
import { Database } from "../api/database";
import { ANNOTATION_PASSWORD_SHA256, childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { passwordFingerprint } from "../lib/scram";
import { APP_USER, SUPERUSER } from "../specs/layout";
import { ReconcileError } from "../lib/errors";
import { isOwnedBy } from "./ownership";
import type { Passwords } from "../specs";

export type { Passwords };

/** 32 random bytes, URL-safe: strong, and no quoting trouble in URIs or shells. */
export const generatePassword = (): string => randomBytes(32).toString("base64url");

const decode = (secret: KubeObject): string | undefined => {
  const data = secret.data as Record<string, string> | undefined;
  return data?.password ? Buffer.from(data.password, "base64").toString("utf8") : undefined;
};

/** A Secret whose password was put back to the one PostgreSQL has. */
export interface RestoredSecret {
  secret: string;
}

/** A Secret whose password was edited: PostgreSQL must get it. */
export interface PasswordChange {
  secret: string;
  role: typeof SUPERUSER | typeof APP_USER;
  /** The password PostgreSQL has, when this operator knows it. */
  from?: string;
  /** The password now in the Secret. */
  to: string;
}

/** What one Secret says: the password in use, a change to make, or that nobody knows it. */
type SecretState =
  | { inUse: string; restored?: boolean }
  | { change: PasswordChange }
  | { missing: true };

/** Per role: the password in use (undefined while unknown), plus what was found on the way. */
export interface FoundPasswords {
  superuser?: string;
  app?: string;
  restored: RestoredSecret[];
  changes: PasswordChange[];
  /** Secrets gone whose password nobody here knows (the Database holds data). */
  missing: string[];
}

/** One credentials Secret to look at: its name, role, and the password seen in use, if any. */
interface Slot {
  secretName: string;
  role: PasswordChange["role"];
  remembered?: string;
}

/** The Secret's password, once it is known to be ours and to have one. */
function passwordOf(secret: KubeObject, db: Database, secretName: string): string {
  if (!isOwnedBy(secret, db)) {
    throw new ReconcileError(
      "OwnershipConflict",
      `Secret ${secretName} exists but is not owned by Database ${db.metadata?.name}; pgkeeper will not touch it (delete or rename it)`,
    );
  }
  const password = decode(secret);
  if (!password) {
    throw new ReconcileError(
      "SecretDamaged",
      `Secret ${secretName} has no password key; pgkeeper never regenerates passwords (the database still has the old one): restore the key`,
    );
  }
  return password;
}

/**
 * A present Secret: in use when its fingerprint matches; otherwise edited, a change from the
 * remembered password when that is the one the fingerprint names. Without a fingerprint (a Secret
 * from an earlier version) the Secret is trusted unless this operator saw another password in use.
 */
function stateOfPresent(slot: Slot, password: string, applied: string | undefined): SecretState {
  if (applied === passwordFingerprint(password)) return { inUse: password };
  const { remembered } = slot;
  const fromKnown =
    remembered !== undefined &&
    (applied === undefined || applied === passwordFingerprint(remembered));
  if (applied === undefined && (!fromKnown || remembered === password)) return { inUse: password };
  const change: PasswordChange = { secret: slot.secretName, role: slot.role, to: password };
  return { change: fromKnown ? { ...change, from: remembered } : change };
}

async function stateOf(
  cluster: Cluster,
  db: Database,
  slot: Slot,
  generate: () => string,
): Promise<SecretState> {
  const namespace = db.metadata?.namespace ?? "";
  const name = slot.secretName;
  const secret = await cluster.get(
    { apiVersion: "v1", kind: "Secret", namespace, name },
    ownChildRead(db),
  );
  if (secret)
    return stateOfPresent(
      slot,
      passwordOf(secret, db, name),
      secret.metadata?.annotations?.[ANNOTATION_PASSWORD_SHA256],
    );
  if (slot.remembered !== undefined) return { inUse: slot.remembered, restored: true };
  if (db.status?.initializedAt) return { missing: true };
  return { inUse: generate() };
}

/**
 * Every Secret's state: `superuser`/`app` hold the passwords in use where known (for a change,
 * the one PostgreSQL has until the rotation is made); `changes` lists the edits to apply.
 */
export async function ensurePasswords(
  cluster: Cluster,
  db: Database,
  generate = generatePassword,
  remembered?: Passwords,
): Promise<FoundPasswords> {
  const names = childNames(db.metadata?.name ?? "");
  const found: FoundPasswords = { restored: [], changes: [], missing: [] };
  const roles = [
    ["superuser", names.superuserSecret, SUPERUSER],
    ["app", names.appSecret, APP_USER],
  ] as const;
  for (const [key, secretName, role] of roles) {
    const slot = { secretName, role, remembered: remembered?.[key] };
    const state = await stateOf(cluster, db, slot, generate);
    if ("inUse" in state) {
      found[key] = state.inUse;
      if (state.restored) found.restored.push({ secret: secretName });
    } else if ("change" in state) {
      found.changes.push(state.change);
      found[key] = state.change.from;
    } else found.missing.push(secretName);
  }
  return found;
}

/** Both passwords when known, else the error naming the Secrets nobody can restore. */
export function passwordsOrError(found: FoundPasswords): Passwords | ReconcileError {
  if (found.superuser !== undefined && found.app !== undefined)
    return { superuser: found.superuser, app: found.app };
  if (found.missing.length > 0) return secretMissing(found.missing);
  const unknown = found.changes.filter(c => c.from === undefined).map(c => c.secret);
  return new ReconcileError(
    "SecretChanged",
    `The password in Secret ${unknown.join(" and ")} is not the one PostgreSQL has, and this operator does not know that one (it started after the edit): put the previous password back, then edit it again to rotate`,
  );
}

const secretMissing = (names: string[]): ReconcileError =>
  new ReconcileError(
    "SecretMissing",
    `Secret ${names.join(" and ")} ${names.length > 1 ? "are" : "is"} gone and this operator does not know the password PostgreSQL has (it started after the Secret went): restore the Secret from your own copy; pgkeeper never generates a new password for a Database that holds data, as it would lock every client out`,
  );
