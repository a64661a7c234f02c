import { parameterNameProblem } from "../../api/parameter-names";
import { Denial, deny, Rule } from "./types";

const FIELD = "spec.postgresql.parameters";
/** Generous for lists such as shared_preload_libraries; keeps the ConfigMap small. */
const MAX_VALUE_LENGTH = 4096;

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
      if (value.length > MAX_VALUE_LENGTH) {
        return [deny(field, `must be at most ${MAX_VALUE_LENGTH} characters, got ${value.length}`)];
      }
      // eslint-disable-next-line no-control-regex -- control characters are exactly what we refuse
      if (/[\u0000-\u001f\u007f]/.test(value)) {
        return [deny(field, "must be a single line without control characters")];
      }
      return [];
    }),
};
