/** The Backup kind's identity (same group and version as Database). */
import { API_VERSION, GROUP, VERSION } from "./identity";

export { API_VERSION as BACKUP_API_VERSION, GROUP as BACKUP_GROUP, VERSION as BACKUP_VERSION };
export const BACKUP_KIND = "Backup";
export const BACKUP_PLURAL = "backups";
export const BACKUP_SINGULAR = "backup";
export const BACKUP_SHORT_NAMES = ["pgbackup"];
