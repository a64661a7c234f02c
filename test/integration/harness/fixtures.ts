import { kubectl, kubectlOk } from "./kubectl";
import { Operator, removeWebhooks } from "./operator";
import { waitFor } from "./wait";
import { env } from "./env";
import { join } from "node:path";

export const CRD_FILE = join(env.repo, "deploy", "crd.yaml");

/** Installs (or updates) the CRD and waits until it is served. */
export async function installCrd(): Promise<void> {
  kubectlOk(["apply", "--server-side", "--force-conflicts", "-f", CRD_FILE]);
  await waitFor(
    "the Database CRD to be established",
    () =>
      kubectl(["wait", "--for=condition=Established", "crd/databases.pgkeeper.dev", "--timeout=5s"])
        .code === 0,
  );
}

/**
 * Labels of every test namespace: the `restricted` Pod Security Standard enforced, as a careful
 * platform sets it for tenants; a pod pgkeeper makes that breaks it is refused, and the test fails.
 */
export const RESTRICTED_NAMESPACE_LABELS = {
  "pod-security.kubernetes.io/enforce": "restricted",
  "pod-security.kubernetes.io/enforce-version": "latest",
};

let counter = 0;
/** A fresh namespace per test file, so tests never see each other's objects. */
export function freshNamespace(prefix: string): string {
  const name = `${prefix}-${process.pid}-${++counter}`;
  const namespace = {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: RESTRICTED_NAMESPACE_LABELS },
  };
  kubectlOk(["create", "-f", "-"], JSON.stringify(namespace));
  return name;
}

export function database(
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
): object {
  return {
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Database",
    metadata: { name, namespace },
    spec: { version: "15", storage: { size: "1Gi" }, ...spec },
  };
}

/** Deletes a namespace and waits (a while) until it is gone; never throws. */
export async function deleteNamespace(ns: string, timeoutMs = 150_000): Promise<void> {
  kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
  await waitFor(`namespace ${ns} to go`, () => kubectl(["get", "namespace", ns]).code !== 0, {
    timeoutMs,
    intervalMs: 1000,
  }).catch(() => undefined);
}

/**
 * The usual suite frame: the CRD installed, a fresh namespace, the operator running for the
 * whole file and its webhooks removed afterwards (so later suites start clean).
 */
export function operatorSuite(
  operator: Operator,
  prefix: string,
  onNamespace: (ns: string) => void,
): void {
  let ns: string | undefined;
  beforeAll(async () => {
    await installCrd();
    ns = freshNamespace(prefix);
    onNamespace(ns);
    await operator.start();
  }, 600_000);

  // The namespace and everything in it go while the next suite starts: deletion needs no
  // operator (docs/adr/0005), and waiting for it cost every suite its pods' shutdown and its
  // volumes' release. The tier stops the whole cluster at its end (leftovers checked there).
  afterAll(async () => {
    if (ns) kubectl(["delete", "namespace", ns, "--wait=false", "--ignore-not-found"]);
    await operator.stop();
    removeWebhooks();
  }, 240_000);
}
