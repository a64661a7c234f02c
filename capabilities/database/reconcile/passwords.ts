/**
 * Secret data is generated once and never regenerated: the password lives in PostgreSQL too,
 * so a new random value would lock every client out. Existing Secrets are the source of truth.
 */
import { randomBytes } from "node:crypto";
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { Cluster, KubeObject } from "../cluster/cluster";
import { ReconcileError } from "./errors";
import { isOwnedBy } from "./ownership";
import type { Passwords } from "../specs";

export type { Passwords };

/** 32 random bytes, URL-safe: strong, and no quoting trouble in URIs or shells. */
export const generatePassword = (): string => randomBytes(32).toString("base64url");

const decode = (secret: KubeObject): string | undefined => {
  const data = secret.data as Record<string, string> | undefined;
  return data?.password ? Buffer.from(data.password, "base64").toString("utf8") : undefined;
};

/** A Secret whose password was put back to the one PostgreSQL has, and why. */
export interface RestoredSecret {
  secret: string;
  was: "deleted" | "changed";
}

interface Lookup {
  cluster: Cluster;
  db: Database;
  generate: () => string;
  restored: RestoredSecret[];
  /** Secrets gone whose password nobody here knows (the Database holds data). */
  missing: string[];
}

async function passwordFrom(
  { cluster, db, generate, restored, missing }: Lookup,
  name: string,
  remembered: string | undefined,
): Promise<string | undefined> {
  const namespace = db.metadata?.namespace ?? "";
  const secret = await cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name });
  if (!secret) {
    if (remembered !== undefined) {
      restored.push({ secret: name, was: "deleted" });
      return remembered;
    }
    if (db.status?.initializedAt) {
      missing.push(name);
      return undefined;
    }
    return generate();
  }
  if (!isOwnedBy(secret, db)) {
    throw new ReconcileError(
      "OwnershipConflict",
      `Secret ${name} exists but is not owned by Database ${db.metadata?.name}; pgkeeper will not touch it (delete or rename it)`,
    );
  }
  const password = decode(secret);
  if (remembered !== undefined && password !== remembered) {
    restored.push({ secret: name, was: "changed" });
    return remembered;
  }
  if (!password) {
    throw new ReconcileError(
      "SecretDamaged",
      `Secret ${name} has no password key; pgkeeper never regenerates passwords (the database still has the old one): restore the key`,
    );
  }
  return password;
}

/**
 * The passwords the children must carry: the stored ones, or new ones on first creation. With
 * `remembered` (the passwords this operator saw in use), a Secret deleted or edited since gets
 * the password PostgreSQL has back, through the children's apply, and is listed in `restored`:
 * a new password would lock out every client, replica, probe and backup, and PostgreSQL would
 * never learn it (rotation by editing the Secret is not supported yet).
 */
export async function ensurePasswords(
  cluster: Cluster,
  db: Database,
  generate = generatePassword,
  remembered?: Passwords,
): Promise<FoundPasswords> {
  const names = childNames(db.metadata?.name ?? "");
  const lookup: Lookup = { cluster, db, generate, restored: [], missing: [] };
  const superuser = await passwordFrom(lookup, names.superuserSecret, remembered?.superuser);
  const app = await passwordFrom(lookup, names.appSecret, remembered?.app);
  const restored = lookup.restored;
  if (superuser === undefined || app === undefined)
    return { superuser, restored, missing: secretMissing(lookup.missing) };
  return { passwords: { superuser, app }, superuser, restored };
}

/**
 * Either every password (`passwords`), or the error naming the Secrets nobody can restore. The
 * superuser's is kept apart: HA needs only that one, and must run even when the app Secret is
 * the one missing.
 */
export type FoundPasswords = { superuser?: string; restored: RestoredSecret[] } & (
  | { passwords: Passwords; missing?: undefined }
  | { passwords?: undefined; missing: ReconcileError }
);

const secretMissing = (names: string[]): ReconcileError =>
  new ReconcileError(
    "SecretMissing",
    `Secret ${names.join(" and ")} ${names.length > 1 ? "are" : "is"} gone and this operator does not know the password PostgreSQL has (it started after the Secret went): restore the Secret from your own copy; pgkeeper never generates a new password for a Database that holds data, as it would lock every client out`,
  );
