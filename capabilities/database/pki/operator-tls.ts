/**
 * What the operator connects to the instances with (instance/targets.ts): the stored Secrets,
 * which is what the pods mount, not what this pass would issue (a renewal reaches the pods only
 * with the Secret). And the TLS transition of a Database from before TLS.
 */
import { Database } from "../api/database";
import { childNames } from "../api/names";
import { ownChildRead } from "../cluster/own-child-read";
import { Cluster, KubeObject } from "../cluster/cluster";
import { OperatorTls, mountsTls } from "../instance/targets";
import type { BuildInput } from "../specs";
import { CA_SECRET_KEYS, TLS_SECRET_KEYS } from "../specs/tls";
import { decoded, pairIn } from "./secret-data";

export async function operatorTls(
  cluster: Cluster,
  db: Database,
): Promise<OperatorTls | undefined> {
  const namespace = db.metadata?.namespace ?? "";
  const names = childNames(db.metadata?.name ?? "");
  const read = (name: string) =>
    cluster.get({ apiVersion: "v1", kind: "Secret", namespace, name }, ownChildRead(db));
  const [ca, tls] = await Promise.all([read(names.caSecret), read(names.tlsSecret)]);
  const serverCa = decoded(tls, TLS_SECRET_KEYS.serverCa);
  const superuser = pairIn(ca, CA_SECRET_KEYS.operatorCert, CA_SECRET_KEYS.operatorKey);
  const monitor = pairIn(ca, CA_SECRET_KEYS.monitorCert, CA_SECRET_KEYS.monitorKey);
  if (!serverCa || !superuser.cert || !superuser.key) return undefined;
  return {
    ca: serverCa,
    superuser: { cert: superuser.cert, key: superuser.key },
    ...(monitor.cert && monitor.key ? { monitor: { cert: monitor.cert, key: monitor.key } } : {}),
  };
}

/** The input with `tlsTransition` set while some instance runs a pod from before TLS. */
export function withTlsTransition(input: BuildInput, pods: KubeObject[]): BuildInput {
  return pods.some(pod => !mountsTls(pod)) ? { ...input, tlsTransition: true } : input;
}
