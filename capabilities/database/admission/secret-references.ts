/**
 * The Secrets a Database spec names. Each reaches pods running `spec.image` (S3 keys and CA
 * bundles as files or variables, pull credentials to the kubelet, a server key to PostgreSQL) or
 * is copied by reconcile, so naming one is reading it: admission checks that the author may.
 */
import { isRecord } from "./rules/util";
import type { CheckedDatabase } from "./rules/types";

/** A Secret the spec names, and where. */
export interface SecretReference {
  field: string;
  name: string;
}

function storeReferences(store: unknown, at: string): SecretReference[] {
  if (!isRecord(store)) return [];
  const named = (sub: string): SecretReference[] => {
    const part = store[sub];
    return isRecord(part) && typeof part.secretName === "string"
      ? [{ field: `${at}.${sub}.secretName`, name: part.secretName }]
      : [];
  };
  return [...named("credentials"), ...named("ca")];
}

/** Every Secret `db`'s spec names, in spec order. */
export function referencedSecrets(db: CheckedDatabase): SecretReference[] {
  const spec = db.spec;
  const pull = (spec.imagePullSecrets ?? []).map((s, i) => ({
    field: `spec.imagePullSecrets[${i}].name`,
    name: s.name,
  }));
  const server = spec.tls?.serverSecretName;
  return [
    ...storeReferences(spec.backup?.objectStore, "spec.backup.objectStore"),
    ...storeReferences(
      spec.bootstrap?.recovery?.source.objectStore,
      "spec.bootstrap.recovery.source.objectStore",
    ),
    ...pull,
    ...(server === undefined ? [] : [{ field: "spec.tls.serverSecretName", name: server }]),
  ];
}

/**
 * The references whose author must be allowed to get the Secret: those the stored object (on
 * UPDATE) did not name already, since an edit of other fields must not need the rights of
 * whoever added them; and never the operator's own pull Secrets, which admission's defaults put
 * in every spec that names none (PGKEEPER_IMAGE_PULL_SECRETS, the platform team's choice).
 */
export function referencesToReview(
  db: CheckedDatabase,
  old: CheckedDatabase | undefined,
  operatorPullSecrets: readonly string[],
): SecretReference[] {
  const before = new Set((old ? referencedSecrets(old) : []).map(r => r.name));
  const operators = new Set(operatorPullSecrets);
  const seen = new Set<string>();
  return referencedSecrets(db).filter(r => {
    if (before.has(r.name) || seen.has(r.name)) return false;
    seen.add(r.name);
    return !(r.field.startsWith("spec.imagePullSecrets") && operators.has(r.name));
  });
}
