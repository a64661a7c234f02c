/**
 * How the operator reaches an instance (ADR 0017): over TLS with its client certificate,
 * verifying the server's certificate against the name of the pod behind the headless Service,
 * when the pod mounts the certificates; as before (the superuser's password, no TLS) when it is
 * a pod from before TLS, which has no certificate to serve.
 */
import { KubeObject, podIP } from "../cluster/cluster";
import { TLS_VOLUME, POSTGRES_PORT } from "../specs/layout";
import type { InstanceTarget } from "./probe-types";

/** The operator's client identity and the CA it verifies servers with, as the Secrets hold them. */
export interface OperatorTls {
  ca: string;
  cert: string;
  key: string;
}

export interface OperatorCredentials {
  /** The superuser's password (ADR 0012: the Secret's, once PostgreSQL has it). */
  password: string;
  /** Undefined until `<db>-ca` and `<db>-tls` exist (the pass that first applies them fills it). */
  tls?: OperatorTls;
}

/** Whether an instance pod mounts the certificates (false: a pod from before TLS). */
export const mountsTls = (pod: KubeObject): boolean =>
  ((pod.spec as { volumes?: { name?: string }[] } | undefined)?.volumes ?? []).some(
    v => v.name === TLS_VOLUME,
  );

/** The DNS name an instance's certificate is checked against: `<pod>.<db>-hl.<namespace>.svc`. */
export const serverNameOf = (pod: KubeObject, headlessService: string): string =>
  `${pod.metadata?.name ?? ""}.${headlessService}.${pod.metadata?.namespace ?? ""}.svc`;

/** Login other than the superuser's on `postgres` (password rotation checks app's). */
export interface Login {
  user: string;
  password: string;
  database: string;
}

export type TargetOf = (ip: string, login?: Login) => InstanceTarget;

/**
 * Targets for the pods of one pass: by IP (what the HA code holds), TLS with the pod's server
 * name when that pod mounts the certificates and the operator has its own.
 */
export function targetsFor(
  pods: KubeObject[],
  credentials: OperatorCredentials,
  headlessService: string,
): TargetOf {
  return (ip, login) => {
    const pod = pods.find(p => podIP(p) === ip);
    const tls =
      pod && credentials.tls && mountsTls(pod)
        ? { ...credentials.tls, servername: serverNameOf(pod, headlessService) }
        : undefined;
    return {
      host: ip,
      port: POSTGRES_PORT,
      password: login?.password ?? credentials.password,
      ...(login ? { user: login.user, database: login.database } : {}),
      ...(tls ? { tls } : {}),
    };
  };
}
