/**
 * The local cluster's object store as the e2e tests use it: its address for pods and for the
 * host, its bucket, and Secrets holding its keys and CA in a test namespace.
 */
import { readFileSync } from "node:fs";
import { create, kubectlOk } from "../integration/harness/kubectl";

export const S3 = {
  endpoint: process.env.PGKEEPER_S3_ENDPOINT ?? "",
  hostEndpoint: process.env.PGKEEPER_S3_HOST_ENDPOINT ?? "",
  bucket: process.env.PGKEEPER_S3_BUCKET ?? "",
  ca: process.env.PGKEEPER_S3_CA ?? "",
  credentials: process.env.PGKEEPER_S3_CREDENTIALS ?? "",
  pidFile: process.env.PGKEEPER_S3_PID_FILE ?? "",
};

/**
 * Stops the store's process (SIGSTOP: connections hang, as with a store that stopped answering)
 * or lets it go on (SIGCONT). The PID comes from the cluster's PID file, checked to be versitygw.
 */
export function freezeStore(frozen: boolean): void {
  const [pid, binary] = readFileSync(S3.pidFile, "utf8").trim().split(/\s+/);
  if (!binary?.endsWith("versitygw"))
    throw new Error(`${S3.pidFile} names ${binary}, not versitygw`);
  process.kill(Number(pid), frozen ? "SIGSTOP" : "SIGCONT");
}

/** ROOT_ACCESS_KEY / ROOT_SECRET_KEY from the cluster's credentials file. */
export function rootKeys(): { id: string; secret: string } {
  const vars = Object.fromEntries(
    readFileSync(S3.credentials, "utf8")
      .split("\n")
      .filter(l => l.includes("="))
      .map(l => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  return { id: vars.ROOT_ACCESS_KEY, secret: vars.ROOT_SECRET_KEY };
}

/** Secrets `s3` (keys) and `s3-ca` (CA bundle) in `namespace`. */
export function createStoreSecrets(namespace: string): void {
  const keys = rootKeys();
  create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s3", namespace },
    stringData: { accessKeyId: keys.id, secretAccessKey: keys.secret },
  });
  create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s3-ca", namespace },
    stringData: { "ca.crt": readFileSync(S3.ca, "utf8") },
  });
}

/** spec.backup.objectStore (and bootstrap.recovery.source.objectStore) for the local store. */
export const localObjectStore = () => ({
  endpoint: S3.endpoint,
  bucket: S3.bucket,
  credentials: { secretName: "s3" },
  ca: { secretName: "s3-ca" },
});

/**
 * pgbackrest in an instance's container, with the configuration and keys the operator gave it:
 * the keys are files of the credentials volume, given to this one process (as an SRE would run
 * it; docs/operations.md).
 */
export const pgbackrestIn = (namespace: string, pod: string, ...args: string[]): string =>
  kubectlOk([
    ...["exec", "-n", namespace, pod, "-c", "postgres", "--"],
    ...["sh", "-c", PGBACKREST_WITH_KEYS, "pgbackrest"],
    ...["--config=/config/pgbackrest.conf", "--stanza=db", ...args],
  ]);

/** `sh -c` running pgbackrest "$@" with repository 1's keys from the credential files. */
export const PGBACKREST_WITH_KEYS =
  "PGBACKREST_REPO1_S3_KEY=$(cat /credentials/repo1-s3-key) " +
  'PGBACKREST_REPO1_S3_KEY_SECRET=$(cat /credentials/repo1-s3-key-secret) exec pgbackrest "$@"';
