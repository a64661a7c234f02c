/**
 * The Database validating webhook: the structural check, then every rule in RULES. Pure except
 * for the thin Pepr adapter at the bottom, so reconcile can run the same checks when the webhook
 * was not there to run them.
 */
import type { PeprValidateRequest } from "pepr";
import type { Database } from "../api/database";
import { DatabaseSpec } from "../api/database-schema";
import { DEFAULT_CONFIG, OperatorConfig, operatorConfig } from "../lib/config";
import { errorMessage } from "../lib/errors";
import { AdmissionReader, clusterReader } from "./cluster-reader";
import { restoreSourceDenials, serverSecretDenials } from "./restore-source";
import { secretAccessDenials } from "./secret-access";
import { storageGrowthDenials } from "./storage-growth";
import { watchedNamespaceDenials } from "./watched-namespace";
import { admissionWarnings } from "./warnings";
import { RULES } from "./rules";
import { checkShape } from "./rules/shape";
import { CheckedDatabase, deny, Denial, Rule, RuleContext } from "./rules/types";
import { deepEqual, isRecord } from "./rules/util";

/** `field: message` per denial, joined with "; " (how Pepr joins messages of several bindings). */
export const formatDenials = (denials: readonly Denial[]): string =>
  denials.map(d => `${d.field}: ${d.message}`).join("; ");

/** A rule that throws becomes a denial naming it: a bug must not turn into "Action failed". */
function runRule(rule: Rule, ctx: RuleContext): Denial[] {
  try {
    return rule.check(ctx);
  } catch (err) {
    return [
      deny(
        "spec",
        `validation rule "${rule.name}" failed unexpectedly (${errorMessage(err)}); please report this pgkeeper bug`,
      ),
    ];
  }
}

const specOf = (obj: unknown): unknown => (isRecord(obj) ? obj.spec : undefined);

const asChecked = (obj: unknown): CheckedDatabase => {
  const record = obj as Record<string, unknown>;
  const metadata = isRecord(record.metadata) ? record.metadata : {};
  return {
    metadata: { name: metadata.name as string | undefined },
    spec: record.spec as DatabaseSpec,
    ...(isRecord(record.status) ? { status: record.status as CheckedDatabase["status"] } : {}),
  };
};

/**
 * Denials of `db` (empty when admitted). `old` is the stored object on UPDATE. Never throws.
 *
 * An update that leaves the spec as it was (labels, annotations, finalizers) is always admitted,
 * like the apiserver's ratcheting of CRD rules: a Database admitted by an older, more lenient
 * operator must not become impossible to touch.
 */
export function validateDatabase(
  db: unknown,
  old?: unknown,
  config: OperatorConfig = DEFAULT_CONFIG,
): Denial[] {
  if (old !== undefined && specOf(old) !== undefined && deepEqual(specOf(old), specOf(db))) {
    return [];
  }
  const shape = checkShape(db);
  if (shape.length > 0) return shape;
  // Transition rules need a well-formed stored object; when it is not, they are skipped.
  const previous = old !== undefined && checkShape(old).length === 0 ? asChecked(old) : undefined;
  const ctx: RuleContext = { db: asChecked(db), old: previous, config };
  return RULES.flatMap(rule => runRule(rule, ctx));
}

type ValidateResponse = ReturnType<PeprValidateRequest<Database>["Approve"]>;

/**
 * The object as the apiserver sent it. Pepr's `Raw` is a ramda clone, which drops a
 * `__proto__` key (a parameter named so would pass unseen and be stored): judge the original.
 */
const sent = (req: PeprValidateRequest<Database>, key: "object" | "oldObject"): unknown =>
  (req.Request as { object?: unknown; oldObject?: unknown })[key] ??
  (key === "object" ? req.Raw : req.OldResource);

/**
 * Whether the request carries a spec to judge. Deletes and status writes carry none; an object
 * being deleted must always be able to lose its finalizers.
 */
function judged(req: PeprValidateRequest<Database>): boolean {
  const { operation, subResource } = req.Request;
  if (operation !== "CREATE" && operation !== "UPDATE") return false;
  return !subResource && !req.Raw.metadata?.deletionTimestamp;
}

/** The namespace and name the request is for. */
const requestedNames = (req: PeprValidateRequest<Database>) => ({
  namespace: req.Request.namespace ?? req.Raw.metadata?.namespace ?? "default",
  name: req.Request.name ?? req.Raw.metadata?.name ?? "",
});

/** The stored object when it matches the schema (what transition checks compare with). */
const storedChecked = (old: unknown): CheckedDatabase | undefined =>
  old === undefined || checkShape(old).length > 0 ? undefined : asChecked(old);

/**
 * The rules, then the reads: whether the author may read each Secret the spec newly names; on
 * CREATE the recovery source's and the server Secret's existence (bootstrap is immutable
 * afterwards), on UPDATE whether the claims can take a storage growth.
 */
async function requestDenials(
  req: PeprValidateRequest<Database>,
  reader: AdmissionReader,
  config: OperatorConfig,
): Promise<Denial[]> {
  const create = req.Request.operation === "CREATE";
  const obj = sent(req, "object");
  const old = create ? undefined : sent(req, "oldObject");
  const { namespace, name } = requestedNames(req);
  // A namespace this install does not serve: nothing else to say (its spec would never run). An
  // update that keeps the spec stays possible, as for every rule (validateDatabase).
  if (create || !deepEqual(specOf(old), specOf(obj))) {
    const elsewhere = watchedNamespaceDenials(namespace, config);
    if (elsewhere.length > 0) return elsewhere;
  }
  const denials = validateDatabase(obj, old, config);
  if (denials.length > 0) return denials;
  const checked = asChecked(obj);
  const before = storedChecked(old);
  const user = req.Request.userInfo ?? {};
  const reads = [
    secretAccessDenials(
      { db: checked, old: before, namespace, user },
      reader,
      config.imagePullSecrets,
    ),
    ...(create
      ? [
          restoreSourceDenials(checked, namespace, reader),
          serverSecretDenials(checked, namespace, reader),
        ]
      : [storageGrowthDenials(checked, before, namespace, name, reader)]),
  ];
  return (await Promise.all(reads)).flat();
}

/** What an admitted UPDATE destroys later (warnings.ts); the stored object judged as it was sent. */
function requestWarnings(req: PeprValidateRequest<Database>): string[] {
  if (req.Request.operation !== "UPDATE") return [];
  const old = storedChecked(sent(req, "oldObject"));
  return old === undefined ? [] : admissionWarnings(asChecked(sent(req, "object")), old);
}

/**
 * The Pepr Validate action for Databases, reading the cluster through `reader` (the recovery
 * source's Secrets and Database). Never throws (Pepr would answer "Action failed: {}"), never
 * waits long (reader reads are bounded).
 */
export function validateDatabaseRequestWith(
  reader: AdmissionReader,
  config: () => OperatorConfig = operatorConfig,
) {
  return async (req: PeprValidateRequest<Database>): Promise<ValidateResponse> => {
    try {
      if (!judged(req)) return req.Approve();
      const denials = await requestDenials(req, reader, config());
      if (denials.length > 0) return req.Deny(formatDenials(denials));
      const warnings = requestWarnings(req);
      return warnings.length > 0 ? req.Approve(warnings) : req.Approve();
    } catch (err) {
      return req.Deny(`pgkeeper could not validate this Database: ${errorMessage(err)}`);
    }
  };
}

/** Pepr Validate action for Databases. Takes only the request (Pepr passes a logger second). */
export const validateDatabaseRequest = validateDatabaseRequestWith(clusterReader);
