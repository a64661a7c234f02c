import { SUPPORTED_VERSIONS } from "../../api/database-schema";
import { deny, Rule } from "./types";

export const versionRule: Rule = {
  name: "version",
  check: ({ db }) =>
    (SUPPORTED_VERSIONS as readonly string[]).includes(db.spec.version)
      ? []
      : [
          deny(
            "spec.version",
            `"${db.spec.version}" is not supported; supported versions: ${SUPPORTED_VERSIONS.join(", ")}`,
          ),
        ],
};

export const versionImmutableRule: Rule = {
  name: "version-immutable",
  check: ({ db, old }) => {
    if (!old || old.spec.version === db.spec.version) return [];
    // A physical base backup only restores into the same major version, so the honest advice
    // is a new Database filled by a dump and restore (or pg_upgrade outside the operator).
    return [
      deny(
        "spec.version",
        `cannot change from ${old.spec.version} to ${db.spec.version}; the version is fixed after creation: a major upgrade needs a new Database with the new version, filled from the old one (dump and restore)`,
      ),
    ];
  },
};
