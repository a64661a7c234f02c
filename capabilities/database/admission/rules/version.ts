import { SUPPORTED_VERSIONS } from "../../api/database-schema";
import { hasImageFor } from "../../lib/config";
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
    const [from, to] = [old.spec.version, db.spec.version];
    // Data written by a major can never be read by an older one: a downgrade is a restore of a
    // backup taken before the upgrade, into a new Database of the old major.
    if (Number(to) < Number(from))
      return [
        deny(
          "spec.version",
          `cannot go down from ${from} to ${to}: PostgreSQL ${to} cannot read data PostgreSQL ${from} wrote; restore a backup of PostgreSQL ${to} into a new Database instead`,
        ),
      ];
    // A physical base backup only restores into the same major version, so the honest advice
    // is a new Database filled by a dump and restore (or pg_upgrade outside the operator).
    return [
      deny(
        "spec.version",
        `cannot change from ${from} to ${to}; the version is fixed after creation: a major upgrade needs a new Database with the new version, filled from the old one (dump and restore)`,
      ),
    ];
  },
};

/**
 * A Database that names no image needs one the operator has for its major: the default is
 * pgkeeper's own image (with pgBackRest), built for the majors Debian serves, and never another
 * image that lacks what the API offers.
 */
export const versionImageRule: Rule = {
  name: "version-image",
  check: ({ db, config }) => {
    const { version, image } = db.spec;
    const supported = (SUPPORTED_VERSIONS as readonly string[]).includes(version);
    if (!supported || (image !== undefined && image.trim() !== "") || hasImageFor(version, config))
      return [];
    return [
      deny(
        "spec.version",
        `the operator has no PostgreSQL ${version} image (it has images for ${config.postgresVersions.join(", ")}): choose one of those, name a PostgreSQL ${version} image with pgBackRest in spec.image, or configure the operator's (PGKEEPER_POSTGRES_VERSIONS)`,
      ),
    ];
  },
};
