/**
 * Fixtures for the builders' unit tests.
 */
import type { Database } from "../../capabilities/database/api/database";
import type { DatabaseSpec } from "../../capabilities/database/api/database-schema";
import { withDefaults } from "../../capabilities/database/api/defaults";
import { BuildInput } from "../../capabilities/database/specs/meta";
import { DatabaseTls, postgresDnsNames } from "../../capabilities/database/specs/tls";
import { tlsMaterial } from "../../capabilities/database/pki/database-tls";

export const DB_NAME = "orders";
export const NAMESPACE = "shop";
export const UID = "7f3c1a52-0d7e-4c1b-9a57-2f1c3c9d8e01";

export const baseSpec: DatabaseSpec = { version: "16", storage: { size: "1Gi" } };

export function database(spec: Partial<DatabaseSpec> = {}): Database {
  return {
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name: DB_NAME, namespace: NAMESPACE, uid: UID, generation: 1 },
    spec: { ...baseSpec, ...spec },
  };
}

/** Builder input for a Database with `spec` over the base spec, defaults filled. */
export function input(spec: Partial<DatabaseSpec> = {}): BuildInput {
  const db = database(spec);
  return { db, spec: withDefaults(db.spec!, version => `postgres:${version}`) };
}

/**
 * The TLS material of the fixture Database (issued once: key generation is slow enough to
 * notice in a table of builders).
 */
let tls: DatabaseTls | undefined;
export function fixtureTls(): DatabaseTls {
  tls ??= tlsMaterial(DB_NAME, {}, postgresDnsNames(input()), new Date("2026-12-01T00:00:00Z")).tls;
  return tls;
}
