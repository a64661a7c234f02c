import { RESTORE_NOT_AVAILABLE } from "../../api/database-schema";
import { deny, Rule } from "./types";
import { deepEqual, isRecord } from "./util";

/**
 * Restoring is not built yet: refused by name at creation (CEL says the same when the operator is
 * down). An existing Database that carries it, admitted by an earlier version, may still be
 * updated as long as bootstrap is unchanged (as the apiserver ratchets its own rules).
 */
export const bootstrapRestoreRule: Rule = {
  name: "bootstrap-restore",
  check: ({ db, old }) => {
    if (db.spec.bootstrap?.restore === undefined) return [];
    if (old && deepEqual(normalised(db.spec.bootstrap), normalised(old.spec.bootstrap))) return [];
    return [
      deny(
        "spec.bootstrap.restore",
        RESTORE_NOT_AVAILABLE.replace(/^spec\.bootstrap\.restore /, ""),
      ),
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
