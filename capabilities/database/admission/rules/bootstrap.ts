import { RECOVERY_PATH_IGNORED, RESTORE_REPLACED } from "../../api/database-schema";
import { CheckedDatabase, Denial, deny, Rule } from "./types";
import { repositoryPathProblem } from "./repository-path";
import { deepEqual, isRecord } from "./util";

/**
 * `restore` never worked and is replaced by `recovery`: refused by name at creation (CEL says the
 * same when the operator is down). An existing Database that carries it, admitted by an earlier
 * version, may still be updated as long as bootstrap is unchanged (as the apiserver ratchets its
 * own rules).
 */
export const bootstrapRestoreRule: Rule = {
  name: "bootstrap-restore",
  check: ({ db, old }) => {
    if (db.spec.bootstrap?.restore === undefined) return [];
    if (old && deepEqual(normalised(db.spec.bootstrap), normalised(old.spec.bootstrap))) return [];
    return [
      deny("spec.bootstrap.restore", RESTORE_REPLACED.replace(/^spec\.bootstrap\.restore /, "")),
    ];
  },
};

/** `bootstrap: {}` says nothing, so it counts as absent. */
const normalised = (bootstrap: unknown): unknown =>
  isRecord(bootstrap) && Object.keys(bootstrap).length === 0 ? undefined : bootstrap;

/**
 * Bootstrap only acts when a Database is created; any later change (added, removed or edited)
 * would make the spec lie about where the data came from without doing anything.
 */
export const bootstrapImmutableRule: Rule = {
  name: "bootstrap-immutable",
  check: ({ db, old }) => {
    if (!old) return [];
    const now = normalised(db.spec.bootstrap);
    const before = normalised(old.spec.bootstrap);
    if (deepEqual(now, before)) return [];
    const what = before === undefined ? "added" : now === undefined ? "removed" : "changed";
    return [
      deny(
        "spec.bootstrap",
        `cannot be ${what} after creation; bootstrap only applies when a Database is created`,
      ),
    ];
  },
};

const TARGET_KINDS = ["time", "lsn", "xid", "name", "immediate"] as const;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const LSN = /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/;

/**
 * A recovery target pgBackRest and PostgreSQL will accept as written: one kind, in its syntax.
 * The CRD says the same in CEL; here each denial names the field. Whether the archive reaches the
 * target can only be known by recovering: that failure is reported on the Database.
 */
function repositoryPathDenials(path: string): Denial[] {
  const problem = repositoryPathProblem(path);
  if (problem === undefined) return [];
  return [
    deny(
      "spec.bootstrap.recovery.source.repositoryPath",
      `${JSON.stringify(path)} is not a repository path (${problem}); expected the source's status.backup.repositoryPath, <path>/<namespace>/<name>/<uid>, e.g. /prod/orders/<uid>`,
    ),
  ];
}

type Target = NonNullable<NonNullable<CheckedDatabase["spec"]["bootstrap"]>["recovery"]>["target"];

function targetDenials(target: Target): Denial[] {
  if (target === undefined) return [];
  const field = "spec.bootstrap.recovery.target";
  const denials: Denial[] = [];
  const kinds = TARGET_KINDS.filter(kind => target[kind] !== undefined);
  if (kinds.length !== 1)
    denials.push(
      deny(
        field,
        `takes exactly one of ${TARGET_KINDS.join(", ")}; got ${kinds.length === 0 ? "none" : kinds.join(" and ")} (leave target out to replay the whole archive)`,
      ),
    );
  const { time, lsn, immediate } = target;
  if (time !== undefined && (!RFC3339.test(time) || isNaN(Date.parse(time))))
    denials.push(
      deny(
        `${field}.time`,
        `${JSON.stringify(time)} is not an RFC 3339 time such as 2026-12-02T10:00:00Z`,
      ),
    );
  if (lsn !== undefined && !LSN.test(lsn))
    denials.push(
      deny(`${field}.lsn`, `${JSON.stringify(lsn)} is not a WAL position such as 0/3000060`),
    );
  if (immediate === false)
    denials.push(
      deny(`${field}.immediate`, "can only be true (leave target out to replay the whole archive)"),
    );
  return denials;
}

/**
 * A recovery target pgBackRest and PostgreSQL will accept as written: one kind, in its syntax.
 * The CRD says the same in CEL; here each denial names the field. Whether the archive reaches the
 * target can only be known by recovering: that failure is reported on the Database.
 */
export const bootstrapRecoveryRule: Rule = {
  name: "bootstrap-recovery",
  check: ({ db }) => {
    const recovery = db.spec.bootstrap?.recovery;
    if (recovery === undefined) return [];
    const prefixGiven = recovery.source.objectStore.path !== undefined;
    return [
      ...(prefixGiven
        ? [
            deny(
              "spec.bootstrap.recovery.source.objectStore.path",
              RECOVERY_PATH_IGNORED.replace(/^\S+ /, ""),
            ),
          ]
        : []),
      ...repositoryPathDenials(recovery.source.repositoryPath),
      ...targetDenials(recovery.target),
    ];
  },
};
