import { a, RegisterKind } from "pepr";
import { DatabaseSpec, DatabaseStatus } from "./database-schema";

export const GROUP = "pgkeeper.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = "Database";
export const PLURAL = "databases";
export const SINGULAR = "database";
export const SHORT_NAMES = ["pgdb"];

/** The `Database` custom resource as the operator sees it. */
export class Database extends a.GenericKind {
  declare spec?: DatabaseSpec;
  declare status?: DatabaseStatus;
}

RegisterKind(Database, { group: GROUP, version: VERSION, kind: KIND, plural: PLURAL });
