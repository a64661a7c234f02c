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

async function passwordFrom(
  cluster: Cluster,
  db: Database,
  name: string,
  generate: () => string,
): Promise<string> {
  const namespace = db.metadata?.namespace ?? "";
  const secret = await cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name });
  if (!secret) return generate();
  if (!isOwnedBy(secret, db)) {
    throw new ReconcileError(
      "OwnershipConflict",
      `Secret ${name} exists but is not owned by Database ${db.metadata?.name}; pgkeeper will not touch it (delete or rename it)`,
    );
  }
  const password = decode(secret);
  if (!password) {
    throw new ReconcileError(
      "SecretDamaged",
      `Secret ${name} has no password key; pgkeeper never regenerates passwords (the database still has the old one): restore the key`,
    );
  }
  return password;
}

/** The passwords the children must carry: the stored ones, or new ones on first creation. */
export async function ensurePasswords(
  cluster: Cluster,
  db: Database,
  generate = generatePassword,
): Promise<Passwords> {
  const names = childNames(db.metadata?.name ?? "");
  return {
    superuser: await passwordFrom(cluster, db, names.superuserSecret, generate),
    app: await passwordFrom(cluster, db, names.appSecret, generate),
  };
}
