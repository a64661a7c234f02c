/**
 * The admission corpus (issue 14): Database specs the apiserver with pgkeeper's webhooks must
 * refuse, each with the field the refusal has to name, and specs it must admit. Plain data, run
 * by test/integration/admission-corpus.test.ts.
 *
 * Strings may hold placeholders the runner fills in: `${NS}` (the test namespace), `${SOURCE}`
 * and `${SOURCE_UID}` (a version-15 Database the runner creates first, with a repository path
 * `/prod/${NS}/${SOURCE}/${SOURCE_UID}`), and `${SECRET}` (an object-store credentials Secret the
 * runner creates in the namespace).
 */
import { IMAGE_VERSIONS } from "../../capabilities/database/lib/config";

export type Spec = Record<string, unknown>;

export interface InvalidCase {
  /** Unique, short: what is wrong. */
  id: string;
  /** The whole spec (or anything else: wrong types are cases too). */
  spec: unknown;
  /** metadata.name when the name is what is wrong. */
  name?: string;
  /** The field the refusal must name, as the apiserver and the webhook spell it. */
  field: string;
  /**
   * Update cases: this spec is created first, then `patch` is applied to it (a JSON merge patch
   * of the spec) and must be refused.
   */
  old?: Spec;
  patch?: Spec;
}

export interface ValidCase {
  id: string;
  spec: Spec;
  name?: string;
}

export const SECRET = "${SECRET}";
export const SOURCE_PATH = "/prod/${NS}/${SOURCE}/${SOURCE_UID}";

/** The smallest valid spec. */
export const BASE: Spec = { version: "15", storage: { size: "1Gi" } };

/** BASE with `extra` merged in (one level: extra's sections replace BASE's). */
export const spec = (extra: Spec = {}): Spec => ({ ...BASE, ...extra });

/** An object store whose credentials Secret exists in the test namespace. */
export const STORE = {
  endpoint: "s3.example.internal",
  bucket: "pgbackups",
  credentials: { secretName: SECRET },
};

/** A backup section with an object store. */
export const stored = (b: Spec): Spec => spec({ backup: { objectStore: STORE, ...b } });

export const params = (parameters: Record<string, unknown>, version = "15"): Spec =>
  spec({ version, ...ownImage(version), postgresql: { parameters } });

export const scheduling = (s: Spec): Spec => spec({ scheduling: s });

/**
 * spec.image for a major the operator has no image of its own for (admission refuses such a
 * Database without one, before any other rule: what the case is about would go unseen).
 */
export const ownImage = (version: string): Spec =>
  (IMAGE_VERSIONS as readonly string[]).includes(version)
    ? {}
    : { image: `registry.example.com/postgres/postgres:${version}` };

/** A recovery from the runner's source Database (version 15), with `source`/`rest` overrides. */
export const recovery = (source: Spec = {}, rest: Spec = {}, version = "15"): Spec =>
  spec({
    version,
    ...ownImage(version),
    bootstrap: {
      recovery: { source: { objectStore: STORE, repositoryPath: SOURCE_PATH, ...source }, ...rest },
    },
  });

/** Cases built from one template over many values. */
export const each = <T>(
  values: readonly T[],
  make: (value: T, i: number) => InvalidCase,
): InvalidCase[] => values.map(make);
