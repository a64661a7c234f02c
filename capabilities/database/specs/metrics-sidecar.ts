/**
 * The `metrics` sidecar of every instance (ADR 0043): the image's prometheus-postgres-exporter on
 * port 9187 over TLS, running pgkeeper's queries (exporter-queries.ts) and the user's, with every
 * built-in collector off, so the metric names are pgkeeper's on every major. It logs in as
 * pgkeeper_monitor over the local socket, by `peer` through pg_ident.conf: no password, no key,
 * never the superuser.
 */
import type { V1Container } from "@kubernetes/client-node";
import {
  CONFIG_DIR,
  CONFIG_VOLUME,
  EXPORTER_BIN,
  FILE_EXPORTER_QUERIES,
  FILE_EXPORTER_WEB,
  FILE_METRICS,
  METRICS_APPLICATION_NAME,
  METRICS_CONTAINER,
  METRICS_IDENT_MAP,
  METRICS_PORT,
  METRICS_PORT_NAME,
  MONITOR_USER,
  POSTGRES_PORT,
  RUN_DIR,
  RUN_VOLUME,
  TLS_DIR,
  TLS_VOLUME,
} from "./layout";
import type { BuildInput } from "./meta";
import { containerSecurityContext } from "./security";

/**
 * The collectors each major's exporter runs unless told not to (its `--help`: "default:
 * enabled"): 15's is bookworm's 0.11.1, 17's trixie's 0.17.1, 18's forky's 0.19.1. Naming one a
 * version lacks stops it from starting, so the list is per major; the postgres tier scrapes each
 * and fails on any metric family that is not pgkeeper's. 0.17.1 and 0.19.1 have the same ten.
 */
const COLLECTOR_PACKAGE_DEFAULTS = [
  "database",
  "locks",
  "replication",
  "replication_slot",
  "roles",
  "stat_bgwriter",
  "stat_database",
  "stat_user_tables",
  "statio_user_tables",
  "wal",
] as const;
export const EXPORTER_DEFAULT_COLLECTORS: Readonly<Record<string, readonly string[]>> = {
  "15": ["database", "bgwriter"],
  "17": COLLECTOR_PACKAGE_DEFAULTS,
  "18": COLLECTOR_PACKAGE_DEFAULTS,
};

/** The exporter's flags for `major`: only pgkeeper's queries, on 9187, over TLS, logs as JSON. */
export function exporterArgs(major: string, configDir = CONFIG_DIR): string[] {
  return [
    "--disable-default-metrics",
    "--disable-settings-metrics",
    ...(EXPORTER_DEFAULT_COLLECTORS[major] ?? []).map(c => `--no-collector.${c}`),
    `--extend.query-path=${configDir}/${FILE_EXPORTER_QUERIES}`,
    `--web.listen-address=:${METRICS_PORT}`,
    `--web.config.file=${configDir}/${FILE_EXPORTER_WEB}`,
    "--log.format=json",
  ];
}

/** The exporter's connection: the local socket, as pgkeeper_monitor (peer, mapped). */
export const EXPORTER_DSN = `host=${RUN_DIR} port=${POSTGRES_PORT} user=${MONITOR_USER} dbname=postgres sslmode=disable application_name=${METRICS_APPLICATION_NAME}`;

/**
 * exporter-toolkit's web configuration: the instance's server certificate, which names the pod
 * (`*.<db>-hl.<ns>.svc`) and the Services, signed by the Database's CA. Read at every
 * connection, so a renewed certificate is served without a restart (the postgres tier checks).
 */
export const renderExporterWebConfig = (tlsDir = TLS_DIR): string =>
  [
    "tls_server_config:",
    `  cert_file: ${tlsDir}/tls.crt`,
    `  key_file: ${tlsDir}/tls.key`,
    "  min_version: TLS12",
    "",
  ].join("\n");

/** pg_ident.conf: the pod's OS user (uid 999, `postgres` in the image) may be pgkeeper_monitor. */
export const renderPgIdent = (): string =>
  [
    "# Managed by pgkeeper; edits are overwritten.",
    "# MAPNAME          SYSTEM-USERNAME  PG-USERNAME",
    `${METRICS_IDENT_MAP}  postgres         ${MONITOR_USER}`,
    "",
  ].join("\n");

export const metricsEnabled = (input: BuildInput): boolean => input.spec.monitoring.enabled;

/** The sidecar, when spec.monitoring.enabled. Small requests: it runs a few queries a scrape. */
export function metricsContainer(input: BuildInput): V1Container[] {
  if (!metricsEnabled(input)) return [];
  return [
    {
      name: METRICS_CONTAINER,
      image: input.spec.image,
      imagePullPolicy: "IfNotPresent",
      command: [
        "/bin/sh",
        `${CONFIG_DIR}/${FILE_METRICS}`,
        EXPORTER_BIN,
        ...exporterArgs(input.spec.version),
      ],
      env: [{ name: "DATA_SOURCE_NAME", value: EXPORTER_DSN }],
      ports: [{ name: METRICS_PORT_NAME, containerPort: METRICS_PORT, protocol: "TCP" }],
      resources: { requests: { cpu: "10m", memory: "32Mi" } },
      securityContext: containerSecurityContext(),
      volumeMounts: [
        { name: CONFIG_VOLUME, mountPath: CONFIG_DIR, readOnly: true },
        { name: RUN_VOLUME, mountPath: RUN_DIR },
        { name: TLS_VOLUME, mountPath: TLS_DIR, readOnly: true },
      ],
    },
  ];
}
