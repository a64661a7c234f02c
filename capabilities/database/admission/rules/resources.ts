import { DatabaseSpec, MAX_RESOURCES } from "../../api/database-schema";
import { compareQuantities, quantityError } from "../../lib/quantity";
import { Denial, deny, Rule } from "./types";
import { isQuantity } from "./util";

type Kind = "requests" | "limits";
type Resource = "cpu" | "memory";

/**
 * Below these PostgreSQL cannot run: its default shared_buffers alone is 128 MB, and with less
 * than 10 millicores startup and probes time out. A request below them would also lie to the
 * scheduler about what the pod uses when idle.
 */
const MIN_RESOURCES: Record<Resource, string> = { cpu: "10m", memory: "128Mi" };

interface Entry {
  field: string;
  kind: Kind;
  resource: Resource;
  value: string | number;
}

/** Every set resource amount with its field path. */
function entries(spec: DatabaseSpec): Entry[] {
  const result: Entry[] = [];
  for (const kind of ["requests", "limits"] as const) {
    for (const resource of ["cpu", "memory"] as const) {
      const value: string | number | undefined = spec.resources?.[kind]?.[resource];
      if (value !== undefined) {
        result.push({ field: `spec.resources.${kind}.${resource}`, kind, resource, value });
      }
    }
  }
  return result;
}

/** A binary suffix counts bytes: "2Ki" CPUs (2048 cores) is a memory amount put in the wrong place. */
const BINARY_SUFFIX = /[KMGTPE]i$/;

function quantityDenials({ field, resource, value }: Entry): Denial[] {
  const error = quantityError(value);
  if (error !== undefined) return [deny(field, error)];
  if (resource === "cpu" && BINARY_SUFFIX.test(String(value))) {
    return [
      deny(
        field,
        `${value} has a binary (byte) suffix; write CPUs as cores or millicores ("2", "500m")`,
      ),
    ];
  }
  if (compareQuantities(value, 0) <= 0) return [deny(field, `${value} must be greater than zero`)];
  if (compareQuantities(value, MAX_RESOURCES[resource]) > 0) {
    return [
      deny(field, `${value} is too large; ${resource} must be at most ${MAX_RESOURCES[resource]}`),
    ];
  }
  return [];
}

export const resourceQuantitiesRule: Rule = {
  name: "resource-quantities",
  check: ({ db }) => entries(db.spec).flatMap(quantityDenials),
};

export const resourceMinimumsRule: Rule = {
  name: "resource-minimums",
  check: ({ db }) =>
    entries(db.spec)
      .filter(({ value }) => isQuantity(value) && compareQuantities(value, 0) > 0)
      .filter(({ resource, value }) => compareQuantities(value, MIN_RESOURCES[resource]) < 0)
      .map(({ field, resource, value }) =>
        deny(
          field,
          `${value} is too little for PostgreSQL; ${resource} must be at least ${MIN_RESOURCES[resource]}`,
        ),
      ),
};

export const requestsWithinLimitsRule: Rule = {
  name: "requests-within-limits",
  check: ({ db }) =>
    (["cpu", "memory"] as const).flatMap((resource): Denial[] => {
      const request = db.spec.resources?.requests?.[resource];
      const limit = db.spec.resources?.limits?.[resource];
      if (!isQuantity(request) || !isQuantity(limit)) return [];
      if (compareQuantities(request, limit) <= 0) return [];
      return [
        deny(
          `spec.resources.requests.${resource}`,
          `${request} exceeds the limit ${limit}; requests must not exceed limits`,
        ),
      ];
    }),
};
