/**
 * Configuration of the controller's machinery (leader election, metrics, Pepr's port), read from
 * the watcher's environment. Kept apart from `OperatorConfig`, which also reaches admission and
 * reconcile: none of this changes what a Database converges to.
 */
import { hostname } from "node:os";

export interface LeaderElectionConfig {
  /** false: this process always acts (one replica, or tests). */
  enabled: boolean;
  /** Lease holder identity; also the reporting instance of our Events. */
  identity: string;
  leaseName: string;
  leaseNamespace: string;
  /** How long a lease is valid without renewal: a standby takes over after this. */
  leaseDurationMs: number;
  /** A leader that could not renew for this long steps down (must be < leaseDurationMs). */
  renewDeadlineMs: number;
  /** Interval between acquire/renew attempts. */
  retryPeriodMs: number;
}

export interface RuntimeConfig {
  leaderElection: LeaderElectionConfig;
  /** Port of our Prometheus endpoint (/metrics); 0 turns it off. */
  metricsPort: number;
  /** Serve it over HTTPS with these PEM files (renewals are picked up without a restart). */
  metricsTls?: { certFile: string; keyFile: string };
  /** Scrapers must send the token this file holds as a bearer token. */
  metricsTokenFile?: string;
  /** Why the metrics settings cannot be honoured: the endpoint stays off rather than serve less. */
  metricsConfigError?: string;
  /** Port of Pepr's own HTTPS server (webhooks, /healthz, Pepr's /metrics). */
  peprPort: number;
}

type Env = Record<string, string | undefined>;

/** CloudNativePG's defaults (15 s lease, 10 s renew deadline, 2 s retry period). */
const DEFAULT_LEASE = { durationS: 15, renewDeadlineS: 10, retryPeriodS: 2 } as const;
const DEFAULT_METRICS_PORT = 9464;
const DEFAULT_PEPR_PORT = 3000;
/** The Lease the watcher replicas elect a leader with (its RBAC: deploy/operator-manifests.ts). */
export const DEFAULT_LEASE_NAME = "pgkeeper-leader";
/** Where Pepr runs its watcher. */
const DEFAULT_LEASE_NAMESPACE = "pepr-system";

const number = (raw: string | undefined, fallback: number, min: number): number => {
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= min ? n : fallback;
};

const port = (raw: string | undefined, fallback: number): number => {
  const n = number(raw, fallback, 0);
  return Number.isInteger(n) && n <= 65535 ? n : fallback;
};

/**
 * Pod name in Kubernetes (HOSTNAME is the pod name there); otherwise host name and PID, so two
 * processes on one machine never share an identity.
 */
export const defaultIdentity = (env: Env, pid = process.pid, host = hostname()): string =>
  env.HOSTNAME?.trim() || `${host}_${pid}`;

/** The lease timings, corrected when inconsistent: renew deadline < duration, retry < deadline. */
function timings(
  env: Env,
): Pick<LeaderElectionConfig, "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs"> {
  let duration = number(env.PGKEEPER_LEASE_DURATION_SECONDS, DEFAULT_LEASE.durationS, 1);
  let deadline = number(env.PGKEEPER_LEASE_RENEW_DEADLINE_SECONDS, DEFAULT_LEASE.renewDeadlineS, 1);
  let retry = number(env.PGKEEPER_LEASE_RETRY_PERIOD_SECONDS, DEFAULT_LEASE.retryPeriodS, 0.1);
  // A deadline at or past the duration would let a standby take over while the old leader still
  // believes it leads: fall back to the defaults rather than run unsafe.
  if (!(deadline < duration && retry < deadline)) {
    duration = DEFAULT_LEASE.durationS;
    deadline = DEFAULT_LEASE.renewDeadlineS;
    retry = DEFAULT_LEASE.retryPeriodS;
  }
  return {
    leaseDurationMs: duration * 1000,
    renewDeadlineMs: deadline * 1000,
    retryPeriodMs: retry * 1000,
  };
}

type MetricsSecurity = Pick<
  RuntimeConfig,
  "metricsTls" | "metricsTokenFile" | "metricsConfigError"
>;

/** TLS needs both files; one alone is refused, never served as plain HTTP. */
function metricsSecurity(env: Env): MetricsSecurity {
  const certFile = env.PGKEEPER_METRICS_TLS_CERT_FILE?.trim();
  const keyFile = env.PGKEEPER_METRICS_TLS_KEY_FILE?.trim();
  const tokenFile = env.PGKEEPER_METRICS_TOKEN_FILE?.trim();
  const security: MetricsSecurity = {
    ...(certFile && keyFile ? { metricsTls: { certFile, keyFile } } : {}),
    ...(tokenFile ? { metricsTokenFile: tokenFile } : {}),
  };
  if (Boolean(certFile) !== Boolean(keyFile))
    security.metricsConfigError =
      "PGKEEPER_METRICS_TLS_CERT_FILE and PGKEEPER_METRICS_TLS_KEY_FILE must be set together";
  return security;
}

/** Reads the configuration from `env` (process.env by default). Pure given its arguments. */
export function readRuntimeConfig(env: Env = process.env): RuntimeConfig {
  return {
    leaderElection: {
      enabled: env.PGKEEPER_LEADER_ELECTION?.trim().toLowerCase() !== "false",
      identity: env.PGKEEPER_LEADER_IDENTITY?.trim() || defaultIdentity(env),
      leaseName: env.PGKEEPER_LEASE_NAME?.trim() || DEFAULT_LEASE_NAME,
      leaseNamespace:
        env.PGKEEPER_LEASE_NAMESPACE?.trim() ||
        env.POD_NAMESPACE?.trim() ||
        DEFAULT_LEASE_NAMESPACE,
      ...timings(env),
    },
    metricsPort: port(env.PGKEEPER_METRICS_PORT, DEFAULT_METRICS_PORT),
    ...metricsSecurity(env),
    peprPort: port(env.PGKEEPER_PEPR_PORT, DEFAULT_PEPR_PORT),
  };
}
