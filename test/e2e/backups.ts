/**
 * A Backup taken as a user would: the object created, its status awaited.
 */
import type { BackupStatus } from "../../capabilities/database/api/backup-schema";
import { create, get } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";

/** Creates Backup `name` of `db` and returns its status once Completed or Failed. */
export async function backUp(
  namespace: string,
  db: string,
  name: string,
  spec: {
    type?: "full" | "diff" | "incr";
    target?: "prefer-standby" | "primary";
    verify?: boolean;
  } = {},
): Promise<BackupStatus> {
  create({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Backup",
    metadata: { name, namespace },
    spec: { database: db, ...spec },
  });
  const status = await waitFor(
    `Backup ${name} Completed or Failed`,
    () => {
      const s = get("backup", namespace, name)?.status as BackupStatus | undefined;
      return s?.phase === "Completed" || s?.phase === "Failed" ? s : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 2000 },
  );
  return status!;
}
