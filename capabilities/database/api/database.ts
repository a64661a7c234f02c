import { a, RegisterKind } from "pepr";
import { DatabaseSpec, DatabaseStatus } from "./database-schema";

import { GROUP, KIND, PLURAL, VERSION } from "./identity";

export * from "./identity";

/** The `Database` custom resource as the operator sees it. */
export class Database extends a.GenericKind {
  declare spec?: DatabaseSpec;
  declare status?: DatabaseStatus;
}

RegisterKind(Database, { group: GROUP, version: VERSION, kind: KIND, plural: PLURAL });
