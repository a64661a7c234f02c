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

let counter = 0;
/** A fresh namespace per test file, so tests never see each other's objects. */
export function freshNamespace(prefix: string): string {
  const name = `${prefix}-${process.pid}-${++counter}`;
  kubectlOk(["create", "namespace", name]);
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

/**
 * The usual suite frame: the CRD installed, a fresh namespace, the operator running for the
 * whole file and its webhooks removed afterwards (so later suites start clean).
 */
export function operatorSuite(
  operator: Operator,
  prefix: string,
  onNamespace: (ns: string) => void,
): void {
  beforeAll(async () => {
    await installCrd();
    onNamespace(freshNamespace(prefix));
    await operator.start();
  }, 600_000);

  afterAll(async () => {
    await operator.stop();
    removeWebhooks();
  }, 60_000);
}
