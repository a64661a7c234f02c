import { MAX_NAME_LENGTH } from "../../api/database-schema";
import { DNS_1035_LABEL } from "./name";
import { deny, Rule } from "./types";
import { deepEqual, isRecord } from "./util";

const SOURCE = "spec.bootstrap.restore.source";

export const bootstrapRestoreRule: Rule = {
  name: "bootstrap-restore",
  check: ({ db }) => {
    const source = db.spec.bootstrap?.restore?.source;
    if (source === undefined) return [];
    if (source === "") return [deny(SOURCE, "must name the Database whose backups to restore")];
    if (source.length > MAX_NAME_LENGTH || !DNS_1035_LABEL.test(source)) {
      return [deny(SOURCE, `"${source}" is not a valid Database name`)];
    }
    if (source === db.metadata.name) {
      return [
        deny(
          SOURCE,
          `cannot name this Database itself ("${source}"); restore from another Database's backups`,
        ),
      ];
    }
    return [];
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
