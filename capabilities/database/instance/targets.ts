/**
 * How the operator reaches an instance (ADR 0017, 0019): over TLS, verifying the server's
 * certificate against the name of the pod behind the headless Service, as `pgkeeper_monitor` by
 * its certificate for everything it does routinely, and as the superuser (certificate and
 * password) only for what asks for one. A pod from before TLS, which has no certificate to serve,
 * is reached as before: the superuser's password, no TLS.
 */
import { KubeObject, podIP } from "../cluster/cluster";
import { MONITOR_USER, POSTGRES_PORT, TLS_VOLUME } from "../specs/layout";
import type { InstanceTarget } from "./types";

export interface KeyPair {
  cert: string;
  key: string;
}

/** The CA the operator verifies servers with and its client identities, as the Secrets hold them. */
export interface OperatorTls {
  ca: string;
  superuser: KeyPair;
  /** Absent until the pass that first issues it has applied `<db>-ca`. */
  monitor?: KeyPair;
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

/** A login with a password (password rotation checks app's, and sets them as the superuser). */
export interface Login {
  user: string;
  password: string;
  database: string;
}

/**
 * Whom to log in as: the monitor (the default: probes, promotion, checkpoint, reload, repair),
 * the superuser (ALTER SYSTEM, the roles, the passfiles of pods from before TLS), or a login.
 */
export type As = "monitor" | "superuser" | Login;

export type TargetOf = (ip: string, as?: As) => InstanceTarget;

/**
 * Targets for the pods of one pass, by IP (what the HA code holds). TLS with the pod's server
 * name when that pod mounts the certificates and the operator has its own; the monitor only
 * then, with the superuser as its fallback (a cluster from before the monitor role) until the
 * monitor has logged in once: a server that refuses it after that gets no superuser login.
 */
export function targetsFor(
  pods: KubeObject[],
  credentials: OperatorCredentials,
  headlessService: string,
  /** False once the monitor has logged in (ha/memory.ts): a refusal is then never obeyed. */
  superuserFallback = true,
): TargetOf {
  return (ip, as = "monitor") => {
    const pod = pods.find(p => podIP(p) === ip);
    const tls = pod && credentials.tls && mountsTls(pod) ? credentials.tls : undefined;
    const servername = pod ? serverNameOf(pod, headlessService) : "";
    const withPair = (pair: KeyPair | undefined) =>
      tls && pair ? { tls: { ca: tls.ca, ...pair, servername } } : {};
    const superuser: InstanceTarget = {
      host: ip,
      port: POSTGRES_PORT,
      password: credentials.password,
      ...withPair(tls?.superuser),
    };
    if (typeof as === "object") return { ...superuser, ...as };
    if (as === "superuser" || !tls?.monitor) return superuser;
    return {
      host: ip,
      port: POSTGRES_PORT,
      user: MONITOR_USER,
      password: "",
      database: "postgres",
      ...withPair(tls.monitor),
      ...(superuserFallback ? { fallback: superuser } : {}),
    };
  };
}
