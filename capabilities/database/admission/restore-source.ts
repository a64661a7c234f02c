/**
 * Checks of a recovery source that need the cluster (issue 14): the object store's Secrets must
 * exist in the Database's namespace, and when the repository path names a Database that still
 * exists (same namespace, name and uid), its major must be this one: a base backup only restores
 * into the major it was taken from.
 *
 * Honest about what cannot be known here: a source Database that is gone (or was recreated, so
 * another uid) is admitted, because its repository outlives it and only reading the repository
 * tells; reconcile reports a source it cannot read. A read that fails or is slow admits too:
 * the webhook must answer, and the CRD's rules and reconcile still hold.
 */
import { CheckedDatabase, Denial, deny } from "./rules/types";
import { parseRepositoryPath } from "./rules/repository-path";

const SOURCE = "spec.bootstrap.recovery.source";

/** What the checks read; `undefined` means the read failed and nothing is concluded. */
export interface SourceReader {
  secretExists(namespace: string, name: string): Promise<boolean | undefined>;
  /** The Database's uid and spec.version; null when it does not exist. */
  database(
    namespace: string,
    name: string,
  ): Promise<{ uid?: string; version?: string } | null | undefined>;
}

async function secretDenial(
  reader: SourceReader,
  namespace: string,
  name: string | undefined,
  field: string,
): Promise<Denial[]> {
  if (name === undefined) return [];
  if ((await reader.secretExists(namespace, name)) !== false) return [];
  return [
    deny(field, `Secret "${name}" does not exist in namespace "${namespace}"; create it first`),
  ];
}

async function majorDenial(
  reader: SourceReader,
  db: CheckedDatabase,
  path: string,
): Promise<Denial[]> {
  const named = parseRepositoryPath(path);
  if (!named) return []; // the shape rule already refused it
  const source = await reader.database(named.namespace, named.name);
  // Gone, recreated (another uid) or unreadable: the repository may well be there; admit.
  if (!source || source.uid !== named.uid || source.version === undefined) return [];
  if (source.version === db.spec.version) return [];
  return [
    deny(
      `${SOURCE}.repositoryPath`,
      `is the repository of Database ${named.namespace}/${named.name}, a PostgreSQL ${source.version} one, but spec.version is ${db.spec.version}; a base backup only restores into its own major`,
    ),
  ];
}

/**
 * spec.tls.serverSecretName must name a Secret of this namespace: reconcile copies the
 * certificate from it, and refuses to go on without it. (Its contents are checked there, where
 * the apiserver need not be asked for a Secret's data at every admission.)
 */
export async function serverSecretDenials(
  db: CheckedDatabase,
  namespace: string,
  reader: SourceReader,
): Promise<Denial[]> {
  const name = db.spec.tls?.serverSecretName;
  return name === undefined
    ? []
    : secretDenial(reader, namespace, name, "spec.tls.serverSecretName");
}

/** Denials of the recovery source of a Database being created in `namespace`. Never throws. */
export async function restoreSourceDenials(
  db: CheckedDatabase,
  namespace: string,
  reader: SourceReader,
): Promise<Denial[]> {
  const recovery = db.spec.bootstrap?.recovery;
  if (recovery === undefined) return [];
  const store = recovery.source.objectStore;
  const checks = await Promise.all([
    secretDenial(
      reader,
      namespace,
      store.credentials.secretName,
      `${SOURCE}.objectStore.credentials.secretName`,
    ),
    secretDenial(reader, namespace, store.ca?.secretName, `${SOURCE}.objectStore.ca.secretName`),
    majorDenial(reader, db, recovery.source.repositoryPath),
  ]);
  return checks.flat();
}
