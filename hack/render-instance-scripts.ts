/**
 * Writes the shell scripts the operator ships to instance and backup pods into a directory, so
 * shellcheck can read them (hack/lint-shell.sh). Usage: ts-node hack/render-instance-scripts.ts DIR
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BACKUP_SH } from "../capabilities/database/specs/scripts/backup";
import { ENTRYPOINT_SH } from "../capabilities/database/specs/scripts/entrypoint";
import { PROBE_SH } from "../capabilities/database/specs/scripts/probe";

const dir = process.argv[2];
if (!dir) throw new Error("usage: render-instance-scripts.ts DIR");
const scripts = { "entrypoint.sh": ENTRYPOINT_SH, "probe.sh": PROBE_SH, "backup.sh": BACKUP_SH };
for (const [name, text] of Object.entries(scripts)) writeFileSync(join(dir, name), text);
