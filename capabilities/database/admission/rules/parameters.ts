import { MAX_PARAMETER_VALUE_LENGTH, SHARED_PRELOAD_LIBRARIES } from "../../api/database-schema";
import { hasCatalog, parameterEntry, parameterNames } from "../../api/parameter-catalog";
import { lostParameter } from "../../api/parameter-catalog/across-majors";
import { blockedBecause, parameterNameProblem } from "../../api/parameter-names";
import { parseBool, splitList } from "../../lib/guc-value";
import { parameterValueProblem } from "../parameter-value";
import { Denial, deny, Rule } from "./types";

const FIELD = "spec.postgresql.parameters";

const names = (parameters: Record<string, string> | undefined): string[] =>
  Object.keys(parameters ?? {});

/** Parameter names are case-insensitive in PostgreSQL: "Port" is "port". */
export const operatorOwnedParametersRule: Rule = {
  name: "operator-owned-parameters",
  check: ({ db }) => {
    const owned = names(db.spec.postgresql?.parameters).filter(
      n => parameterNameProblem(n) === "operator-owned",
    );
    if (owned.length === 0) return [];
    const verb = owned.length === 1 ? "is" : "are";
    return [deny(FIELD, `${owned.join(", ")} ${verb} managed by pgkeeper and cannot be set`)];
  },
};

/** Parameters nobody may set (api/database-schema.ts BLOCKED_PARAMETERS), each with its reason. */
export const blockedParametersRule: Rule = {
  name: "blocked-parameters",
  check: ({ db }) =>
    names(db.spec.postgresql?.parameters).flatMap(n => {
      const why = blockedBecause(n);
      return why ? [deny(`${FIELD}[${n}]`, `cannot be set: ${why}`)] : [];
    }),
};

/** shared_preload_libraries: only the libraries every image has, and none that runs shell. */
export const preloadLibrariesRule: Rule = {
  name: "shared-preload-libraries",
  check: ({ db }) =>
    Object.entries(db.spec.postgresql?.parameters ?? {}).flatMap(([name, value]): Denial[] => {
      if (name.toLowerCase() !== "shared_preload_libraries") return [];
      let libraries: string[];
      try {
        libraries = splitList("shared_preload_libraries", value);
      } catch {
        return []; // the value rules name the unterminated quote
      }
      const others = libraries.filter(
        l => !(SHARED_PRELOAD_LIBRARIES as readonly string[]).includes(l),
      );
      if (others.length === 0) return [];
      return [
        deny(
          `${FIELD}[${name}]`,
          `may name only ${SHARED_PRELOAD_LIBRARIES.join(", ")}; not ${others.join(", ")}`,
        ),
      ];
    }),
};

export const parameterNamesRule: Rule = {
  name: "parameter-names",
  check: ({ db }) => {
    const all = names(db.spec.postgresql?.parameters);
    const invalid = all
      .filter(n => parameterNameProblem(n) === "invalid")
      .map(n =>
        deny(
          `${FIELD}[${n}]`,
          "is not a valid parameter name; use letters, digits and underscores, with dots for extension parameters (pg_stat_statements.max)",
        ),
      );
    const seen = new Map<string, string>();
    const duplicates: Denial[] = [];
    for (const n of all) {
      const first = seen.get(n.toLowerCase());
      if (first !== undefined) {
        duplicates.push(
          deny(`${FIELD}[${n}]`, `duplicates ${first}: parameter names are case-insensitive`),
        );
      } else seen.set(n.toLowerCase(), n);
    }
    return [...invalid, ...duplicates];
  },
};

/**
 * Values go into postgresql.conf: a line break would let a value smuggle in other settings
 * (including operator-owned ones), so control characters are refused.
 */
export const parameterValuesRule: Rule = {
  name: "parameter-values",
  check: ({ db }) =>
    Object.entries(db.spec.postgresql?.parameters ?? {}).flatMap(([name, value]): Denial[] => {
      const field = `${FIELD}[${name}]`;
      if (value.trim() === "") {
        return [deny(field, "must not be empty; remove the parameter to use PostgreSQL's default")];
      }
      if (value.length > MAX_PARAMETER_VALUE_LENGTH) {
        return [
          deny(
            field,
            `must be at most ${MAX_PARAMETER_VALUE_LENGTH} characters, got ${value.length}`,
          ),
        ];
      }
      // eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
      if (/[\u0000-\u001f\u007f]/.test(value)) {
        return [deny(field, "must be a single line without control characters")];
      }
      return [];
    }),
};

/**
 * Settings PostgreSQL accepts that break what pgkeeper promises: at wal_level minimal nothing
 * streams or archives; without full-page writes a torn page cannot be repaired from WAL, and
 * pg_rewind (a former primary rejoining) needs them.
 */
const BREAKS_GUARANTEES: Record<string, { refused: (value: string) => boolean; why: string }> = {
  wal_level: {
    refused: value => value.toLowerCase() === "minimal",
    why: "cannot be minimal: standbys could not stream and nothing could be archived; use replica (the default) or logical",
  },
  full_page_writes: {
    refused: value => parseBool(value) === false,
    why: "cannot be off: torn pages could not be repaired from WAL, and a former primary could not rejoin with pg_rewind",
  },
};

const MAX_TYPO_EDITS = 3;
/**
 * Typos a denial suggests a name for. The search costs a few hundred edit distances per name: with
 * 200 long unknown names it held the webhook's event loop for 1.7 s, so it stops at a few (the
 * rest are still refused, by name).
 */
const MAX_SUGGESTIONS = 10;

/** The nearest known name within 3 edits, for a typo's denial. */
function nearest(name: string, known: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    // The length difference is a lower bound of the distance: most candidates end here.
    if (Math.abs(candidate.length - name.length) > MAX_TYPO_EDITS) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= MAX_TYPO_EDITS && (!best || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * Names and values checked against the catalog of the Database's major (pg_settings of that
 * server): unknown names (typos, configuration directives such as include), read-only
 * parameters, and values PostgreSQL would refuse, each named with what is allowed. Extension
 * parameters (with a dot) are the extension's to check. Majors without a catalog get the name
 * rules above only.
 */
export const parameterCatalogRule: Rule = {
  name: "parameter-catalog",
  check: ({ db }) => {
    const major = db.spec.version;
    if (!hasCatalog(major)) return [];
    let suggestions = 0;
    return Object.entries(db.spec.postgresql?.parameters ?? {}).flatMap(
      ([name, value]): Denial[] => {
        const field = `${FIELD}[${name}]`;
        if (parameterNameProblem(name) !== undefined || name.includes(".")) return [];
        const known = parameterEntry(major, name);
        if (!known) {
          const lost = lostParameter(major, name);
          if (lost) return [deny(field, `is not a PostgreSQL ${major} parameter (${lost})`)];
          const guess =
            suggestions++ < MAX_SUGGESTIONS ? nearest(name, parameterNames(major)) : undefined;
          return [
            deny(
              field,
              `is not a PostgreSQL ${major} parameter${guess ? `; did you mean ${guess}?` : ""}`,
            ),
          ];
        }
        if (known.entry.context === "internal") {
          return [deny(field, "is read-only (fixed when PostgreSQL was built or initialised)")];
        }
        const problem = parameterValueProblem(known.entry, value, known.name);
        if (problem) return [deny(field, problem)];
        const guarantee = BREAKS_GUARANTEES[known.name];
        return guarantee?.refused(value) ? [deny(field, guarantee.why)] : [];
      },
    );
  },
};
