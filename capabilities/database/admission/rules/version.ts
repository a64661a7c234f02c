import { equals, omit } from "ramda";
import { DatabaseSpec, SUPPORTED_VERSIONS } from "../../api/database-schema";
import { isUnderWay } from "../../api/upgrade-phases";
import { defaultImageFor, hasImageFor, OperatorConfig } from "../../lib/config";
import { CheckedDatabase, deny, Denial, Rule } from "./types";

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

/** The spec apart from what a major upgrade changes (the version, and the image of that major). */
const restOf = (spec: DatabaseSpec): Omit<DatabaseSpec, "version" | "image"> =>
  omit(["version", "image"], spec);

/**
 * spec.version after creation (ADR 0041): it rises alone, which starts a major upgrade; it never
 * falls below the major the data directory is on (status.version), so the one fall admitted is
 * back to that major, before the conversion ran or after it failed.
 */
/** A fall: only back to the data's major, and not while the data is converted. */
function fallDenials(from: string, to: string, data: string, phase?: string): Denial[] {
  if (to !== data)
    return [
      deny(
        "spec.version",
        `cannot go down from ${from} to ${to}: PostgreSQL ${to} cannot read data PostgreSQL ${from} wrote; restore a backup of PostgreSQL ${to} into a new Database instead`,
      ),
    ];
  if (phase === "Upgrading")
    return [
      deny(
        "spec.version",
        `cannot go back to ${to} now: the data directory is being converted to PostgreSQL ${from}; wait for status.upgrade to end`,
      ),
    ];
  return [];
}

/**
 * Rises pg_upgrade cannot make with pgkeeper's own images (ADR 0041, found by the rehearsal of
 * the schema): Debian's builds of 15 and 17 keep a column option (pg_attver) on every column that
 * its build of 18 refuses, so each such upgrade would fail after every instance stopped.
 */
const UNREACHABLE_WITH_OWN_IMAGES: Record<string, readonly string[]> = { "18": ["15", "17"] };

function unreachable(
  from: string,
  to: string,
  image: string | undefined,
  config: OperatorConfig,
): Denial[] {
  const ownImage = hasImageFor(to, config) && image === defaultImageFor(to, config);
  if (!ownImage || !UNREACHABLE_WITH_OWN_IMAGES[to]?.includes(from)) return [];
  return [
    deny(
      "spec.version",
      `cannot rise from ${from} to ${to} with pgkeeper's images: their PostgreSQL ${from} keeps a column option (pg_attver) that PostgreSQL ${to}'s refuses, so pg_upgrade would fail after every instance stopped; move to ${to} by logical replication into a new Database (wal_level: logical), or name images that can in spec.image`,
    ),
  ];
}

/** A rise: one upgrade at a time, from the data's major, changing nothing else. */
function riseDenials(old: CheckedDatabase, db: CheckedDatabase, config: OperatorConfig): Denial[] {
  const [from, to] = [old.spec.version, db.spec.version];
  const data = old.status?.version ?? from;
  const upgrade = old.status?.upgrade;
  // An upgrade between its start and its end: another version change would pull the rug.
  if (upgrade && isUnderWay(upgrade))
    return [
      deny(
        "spec.version",
        `cannot change to ${to} while the upgrade to ${upgrade.to ?? from} is under way (status.upgrade.phase ${upgrade.phase})`,
      ),
    ];
  if (data !== from)
    return [
      deny(
        "spec.version",
        `cannot rise to ${to}: the data directory is PostgreSQL ${data}'s (the upgrade to ${from} did not complete); set spec.version back to ${data} first`,
      ),
    ];
  if (!equals(restOf(old.spec), restOf(db.spec)))
    return [
      deny(
        "spec.version",
        `a major upgrade from ${from} to ${to} changes spec.version alone (and spec.image, to an image of PostgreSQL ${to}): apply the other changes in a separate update, before or after it`,
      ),
    ];
  return unreachable(from, to, db.spec.image, config);
}

/**
 * spec.version after creation (ADR 0041): it rises alone, which starts a major upgrade; it never
 * falls below the major the data directory is on (status.version), so the one fall admitted is
 * back to that major, before the conversion ran or after it failed.
 */
export const versionChangeRule: Rule = {
  name: "version-change",
  check: ({ db, old, config }) => {
    if (!old || old.spec.version === db.spec.version) return [];
    const [from, to] = [old.spec.version, db.spec.version];
    if (Number(to) < Number(from))
      return fallDenials(from, to, old.status?.version ?? from, old.status?.upgrade?.phase);
    return riseDenials(old, db, config);
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
