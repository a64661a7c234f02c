/**
 * The local cluster's image registry (hack/cluster: TLS with the cluster CA, anonymous pulls but
 * for `private/`, every push authenticated) as the e2e tests use it: where pgkeeper's images
 * are, and pull Secrets made from its credentials.
 */
import { readFileSync } from "node:fs";
import { create } from "../integration/harness/kubectl";

const registry = (): string => {
  const host = process.env.PGKEEPER_REGISTRY ?? "";
  if (!host) throw new Error("PGKEEPER_REGISTRY is not set: is the local cluster's node up?");
  return host;
};

/** Where the operator's images are in the registry (PGKEEPER_IMAGE_REPOSITORY). */
export const imageRepository = (): string => `${registry()}/pgkeeper`;
/** pgkeeper's PostgreSQL image of `major`, as the kubelet pulls it. */
export const postgresImage = (major: string): string => `${imageRepository()}/postgres:${major}`;
/**
 * A second name of the 15 image (hack/images/push.sh): changing spec.image to it rolls every
 * instance out as a minor upgrade does (the same build under another tag).
 */
export const nextPostgres15Image = (): string => `${imageRepository()}/postgres:15-next`;
/** The copy of the 15 image that needs credentials. */
export const privatePostgresImage = (): string => `${registry()}/private/postgres:15`;

/** A kubernetes.io/dockerconfigjson Secret `name` holding the registry's credentials. */
export function createPullSecret(namespace: string, name: string): void {
  const file = process.env.PGKEEPER_REGISTRY_CREDENTIALS ?? "";
  const [user, ...rest] = readFileSync(file, "utf8").trim().split(":");
  const password = rest.join(":");
  const auth = Buffer.from(`${user}:${password}`).toString("base64");
  create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace },
    type: "kubernetes.io/dockerconfigjson",
    stringData: {
      ".dockerconfigjson": JSON.stringify({
        auths: { [registry()]: { username: user, password, auth } },
      }),
    },
  });
}
