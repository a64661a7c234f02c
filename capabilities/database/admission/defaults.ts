/**
 * What the Mutate webhook writes into a Database: every absent defaultable field, from the same
 * `withDefaults` that reconcile reads specs through. The image is pinned into the spec at
 * creation, so upgrading the operator (whose default image may move) never changes the image of
 * a running Database.
 */
import { DatabaseSpec, SUPPORTED_VERSIONS } from "../api/database-schema";
import { withDefaults } from "../api/defaults";
import { defaultImageFor, hasImageFor, OperatorConfig } from "../lib/config";
import { checkSpecShape } from "./rules/shape";
import { isRecord } from "./rules/util";

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
export type SpecPatch = DeepPartial<DatabaseSpec>;

const isEmpty = (value: unknown): boolean =>
  (Array.isArray(value) && value.length === 0) ||
  (isRecord(value) && Object.keys(value).length === 0);

/** `value` without empty maps and lists: `resources: {}` is noise, not a default. */
function pruned(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const p = pruned(child);
    if (p !== undefined && !isEmpty(p)) result[key] = p;
  }
  return result;
}

/** The part of `resolved` that `present` lacks; present values are never touched. */
function absentPart(
  present: Record<string, unknown>,
  resolved: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(resolved)) {
    const current = present[key];
    const part =
      current === undefined
        ? pruned(value)
        : isRecord(current) && isRecord(value)
          ? absentPart(current, value)
          : undefined;
    if (part !== undefined && !isEmpty(part)) patch[key] = part;
  }
  return patch;
}

/**
 * The image when spec.image is absent. On UPDATE the stored image wins over the operator's
 * current default: a client that drops the field (server-side apply does when it owned it)
 * must not silently move the Database to another image. None for a major the operator has no
 * image for: validation then refuses the Database, naming the majors it has.
 */
function imageFor(
  spec: DatabaseSpec,
  oldSpec: unknown,
  config: OperatorConfig,
): string | undefined {
  if (isRecord(oldSpec) && oldSpec.version === spec.version) {
    const image = oldSpec.image;
    if (typeof image === "string" && image.trim() !== "") return image;
  }
  return hasImageFor(spec.version, config) ? defaultImageFor(spec.version, config) : undefined;
}

/**
 * spec.version raised (a major upgrade, ADR 0041) with the image the operator chose for the old
 * major left as stored: the operator's image of the new major. An image the user chose stays,
 * and validation asks for one of the new major.
 */
function imageFollowingVersion(
  spec: DatabaseSpec,
  oldSpec: unknown,
  config: OperatorConfig,
): string | undefined {
  if (!isRecord(oldSpec) || typeof oldSpec.version !== "string") return undefined;
  if (oldSpec.version === spec.version || spec.image !== oldSpec.image) return undefined;
  const operatorsChoice =
    hasImageFor(oldSpec.version, config) &&
    oldSpec.image === defaultImageFor(oldSpec.version, config);
  return operatorsChoice && hasImageFor(spec.version, config)
    ? defaultImageFor(spec.version, config)
    : undefined;
}

/**
 * The pull Secrets when spec.imagePullSecrets is absent: the stored ones on UPDATE (as with the
 * image), else the operator's, if it has any.
 */
function pullSecretsFor(oldSpec: unknown, config: OperatorConfig): { name: string }[] | undefined {
  const stored = isRecord(oldSpec) ? oldSpec.imagePullSecrets : undefined;
  if (Array.isArray(stored) && stored.length > 0) return stored as { name: string }[];
  return config.imagePullSecrets.length > 0
    ? config.imagePullSecrets.map(name => ({ name }))
    : undefined;
}

/**
 * A new Database keeps a NetworkPolicy unless its spec says `enabled: false`. Only at creation:
 * a Database created before the field stays as it is (no policy) until its owner opts in, since
 * a policy where the network plugin enforces it would cut off clients from other namespaces.
 */
const networkPolicyOnCreate = (spec: DatabaseSpec): DatabaseSpec =>
  spec.networkPolicy?.enabled === undefined
    ? { ...spec, networkPolicy: { ...spec.networkPolicy, enabled: true } }
    : spec;

/**
 * The object to merge into `spec` so every defaultable field is filled, or undefined when
 * nothing is missing. Never throws: a malformed spec (or an unsupported version, whose image
 * cannot be chosen) gets no patch, and validation reports what is wrong.
 */
export function defaultsPatch(
  spec: unknown,
  config: OperatorConfig,
  oldSpec?: unknown,
): SpecPatch | undefined {
  try {
    if (checkSpecShape(spec).length > 0) return undefined;
    const typed = spec as DatabaseSpec;
    if (!(SUPPORTED_VERSIONS as readonly string[]).includes(typed.version)) return undefined;
    const image = imageFor(typed, oldSpec, config);
    const pullSecrets = typed.imagePullSecrets ? undefined : pullSecretsFor(oldSpec, config);
    const resolved = withDefaults(
      oldSpec === undefined ? networkPolicyOnCreate(typed) : typed,
      () => image as string,
    ) as unknown as Record<string, unknown>;
    if (pullSecrets) resolved.imagePullSecrets = pullSecrets;
    // No image to default to: left absent (pruned below) for validation to refuse.
    if (image === undefined) delete resolved.image;
    const followed = imageFollowingVersion(typed, oldSpec, config);
    const patch = {
      ...absentPart(typed as Record<string, unknown>, resolved),
      ...(followed ? { image: followed } : {}),
    };
    return Object.keys(patch).length === 0 ? undefined : (patch as SpecPatch);
  } catch {
    return undefined;
  }
}
