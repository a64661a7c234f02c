import { a, RegisterKind } from "pepr";
import { BackupSpec, BackupStatus } from "./backup-schema";
import { BACKUP_KIND, BACKUP_PLURAL } from "./backup-identity";
import { GROUP, VERSION } from "./identity";

/** The `Backup` custom resource as the operator sees it. */
export class Backup extends a.GenericKind {
  declare spec?: BackupSpec;
  declare status?: BackupStatus;
}

RegisterKind(Backup, { group: GROUP, version: VERSION, kind: BACKUP_KIND, plural: BACKUP_PLURAL });
