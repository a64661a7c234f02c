/**
 * The ConfigMap `<db>-config`, mounted at /config in every instance: postgresql.conf, pg_hba.conf,
 * the instance scripts and the SQL the entrypoint runs at bootstrap (the modules of scripts/ carry
 * them, generated from the .sh and .sql files there). postgres reads postgresql.conf straight from
 * the mount (`-c config_file=`), so once the kubelet refreshes the volume a reload applies changed
 * reloadable parameters without copying anything.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import { omit } from "ramda";
import { contentDigest } from "../lib/content-hash";
import {
  FILE_ARCHIVE,
  FILE_BOOTSTRAP_SQL,
  FILE_ENTRYPOINT,
  FILE_EXPORTER_QUERIES,
  FILE_EXPORTER_WEB,
  FILE_METRICS,
  FILE_PG_IDENT,
  FILE_PGBACKREST_CONF,
  FILE_PGBACKREST_SERVER,
  PGBACKREST_CA_FILE,
  FILE_MANAGED_CONF,
  FILE_PG_HBA,
  FILE_POSTGRESQL_CONF,
  FILE_PROBE,
} from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { renderManagedConf, renderPgHba, renderPostgresqlConf } from "./postgresql-conf";
import { SERVER_TLS_FILES } from "./backup-tls";
import { pgbackrestConf, repositoryPath, tlsServerSection } from "./pgbackrest";
import { recoveryFiles } from "./recovery";
import { renderExporterQueries } from "./exporter-queries";
import { metricsEnabled, renderExporterWebConfig, renderPgIdent } from "./metrics-sidecar";
import { METRICS_SH } from "./scripts/metrics";
import { ARCHIVE_SH } from "./scripts/archive";
import { ENTRYPOINT_SH } from "./scripts/entrypoint";
import { PGBACKREST_SERVER_SH } from "./scripts/pgbackrest-server";
import { PROBE_SH } from "./scripts/probe";
import { BOOTSTRAP_SQL } from "./scripts/sql";

export function buildConfigMap(input: BuildInput): Child<V1ConfigMap> {
  const store = input.spec.backup?.objectStore;
  const id = identity(input.db);
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: childMeta(input, namesOf(input).configMap),
    data: {
      [FILE_POSTGRESQL_CONF]: renderPostgresqlConf(id.name, store !== undefined),
      [FILE_MANAGED_CONF]: renderManagedConf(input),
      [FILE_PG_HBA]: renderPgHba({
        allowPlaintext: input.spec.tls.allowPlaintext,
        enableSuperuserAccess: input.spec.enableSuperuserAccess,
        transition: input.tlsTransition === true,
      }),
      [FILE_PG_IDENT]: renderPgIdent(),
      [FILE_ENTRYPOINT]: ENTRYPOINT_SH,
      [FILE_PROBE]: PROBE_SH,
      [FILE_BOOTSTRAP_SQL]: BOOTSTRAP_SQL,
      ...(store
        ? {
            [FILE_PGBACKREST_CONF]:
              pgbackrestConf(
                { ...store, ...(store.ca ? { caFile: PGBACKREST_CA_FILE } : {}) },
                repositoryPath(store, {
                  namespace: id.namespace,
                  name: id.name,
                  uid: input.db.metadata?.uid ?? "",
                }),
              ) +
              "\n" +
              tlsServerSection(SERVER_TLS_FILES),
            [FILE_ARCHIVE]: ARCHIVE_SH,
            [FILE_PGBACKREST_SERVER]: PGBACKREST_SERVER_SH,
          }
        : {}),
      ...recoveryFiles(input.spec.bootstrap?.recovery),
      ...metricsFiles(input),
    },
  };
}

/** The metrics sidecar's files, when it runs (metrics-sidecar.ts). */
const metricsFiles = (input: BuildInput): Record<string, string> =>
  metricsEnabled(input)
    ? {
        [FILE_METRICS]: METRICS_SH,
        [FILE_EXPORTER_WEB]: renderExporterWebConfig(),
        [FILE_EXPORTER_QUERIES]: renderExporterQueries(input.spec.version, input.customQueries),
      }
    : {};

/**
 * sha256 (hex) of the ConfigMap's data, independent of key order. It goes on the pod template
 * instead of a timestamp: the template changes only when the configuration does. The managed
 * parameters are left out: they are applied live (ALTER SYSTEM and a reload), and restart-only
 * ones are rolled out from status.pendingRestart, so they must not mark every pod outdated. So is
 * pg_hba.conf: PostgreSQL reloads it, and ha/ reloads each instance once the new file is there.
 * And so are the metrics queries: scripts/metrics.sh restarts the exporter when they change.
 */
export function configHash(configMap: V1ConfigMap): string {
  return contentDigest(
    omit([FILE_MANAGED_CONF, FILE_PG_HBA, FILE_EXPORTER_QUERIES], configMap.data ?? {}),
  );
}
