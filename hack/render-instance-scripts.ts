/**
 * Writes the shell scripts the operator ships to instance and backup pods into a directory, so
 * shellcheck can read them (hack/lint-shell.sh). Usage: ts-node hack/render-instance-scripts.ts DIR
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ARCHIVE_SH } from "../capabilities/database/specs/scripts/archive";
import { BACKUP_JOB_SH } from "../capabilities/database/specs/scripts/backup-job";
import { ENTRYPOINT_SH } from "../capabilities/database/specs/scripts/entrypoint";
import { PGBACKREST_SERVER_SH } from "../capabilities/database/specs/scripts/pgbackrest-server";
import { PROBE_SH } from "../capabilities/database/specs/scripts/probe";
import { RESTORE_WAL_SH } from "../capabilities/database/specs/scripts/restore-wal";

const dir = process.argv[2];
if (!dir) throw new Error("usage: render-instance-scripts.ts DIR");
const scripts = {
  "entrypoint.sh": ENTRYPOINT_SH,
  "probe.sh": PROBE_SH,
  "pgbackrest-backup-job.sh": BACKUP_JOB_SH,
  "pgbackrest-archive.sh": ARCHIVE_SH,
  "pgbackrest-restore-wal.sh": RESTORE_WAL_SH,
  "pgbackrest-server.sh": PGBACKREST_SERVER_SH,
};
for (const [name, text] of Object.entries(scripts)) writeFileSync(join(dir, name), text);
