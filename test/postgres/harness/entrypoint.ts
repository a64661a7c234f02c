/**
 * The instance entrypoint (entrypoint.sh) run for real against the harness's servers, with what
 * the StatefulSet gives it: the ConfigMap (postgresql.conf, which includes the per-instance file
 * the entrypoint writes), a run directory, the topology, the environment. postgresql.conf lives
 * outside PGDATA, as in the pod: pg_rewind copies PGDATA's own files from the source.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { ENV, INSTANCE_CONF } from "../../../capabilities/database/specs/layout";
import { ENTRYPOINT_SH } from "../../../capabilities/database/specs/scripts/entrypoint";
import { BASE_CONF, Cluster, confLines } from "./cluster";
import { PG_BIN, pgMajor } from "./os";
import { PgServer } from "./server";
import { credentialFiles } from "./credentials";

/**
 * The ConfigMap's postgresql.conf (including the per-instance file the entrypoint writes into
 * `run`) and entrypoint.sh in `config`; returns the script.
 */
function writeInstanceConfig(
  cluster: Cluster,
  server: PgServer,
  dirs: { config: string; run: string },
  conf: Record<string, string> = {},
): string {
  const runConf = path.join(dirs.run, path.basename(INSTANCE_CONF));
  cluster.writeOwned(
    path.join(dirs.config, "postgresql.conf"),
    confLines({
      ...BASE_CONF,
      port: String(server.port),
      unix_socket_directories: server.socketDir,
      ...conf,
    }) + `include_if_exists = '${runConf}'\n`,
  );
  const script = path.join(dirs.config, "entrypoint.sh");
  writeFileSync(script, ENTRYPOINT_SH, { mode: 0o755 });
  return script;
}

/** The app password of a Database created from a backup (recovery.sql sets it). */
export const RESTORED_APP_PASSWORD = "app-password-of-the-new-database";

/** How `server`'s pod `podName` would start, following `primary`. */
export function entrypointFor(
  cluster: Cluster,
  server: PgServer,
  primary: PgServer,
  podName: string,
) {
  const config = cluster.ownedDir(`${podName}-config`);
  const run = cluster.ownedDir(`${podName}-run`);
  const topology = cluster.ownedDir(`${podName}-topology`);
  const script = writeInstanceConfig(cluster, server, { config, run });
  cluster.writeOwned(path.join(topology, "primary"), primary.name);
  return {
    topologyPrimaryFile: path.join(topology, "primary"),
    command: "/bin/sh",
    args: [script],
    env: {
      PGDATA: server.dataDir,
      PG_BIN,
      PGKEEPER_CONFIG_DIR: config,
      PGKEEPER_RUN_DIR: run,
      PGKEEPER_TOPOLOGY_DIR: topology,
      PGKEEPER_TLS_DIR: cluster.tlsDir,
      PGKEEPER_PORT: String(primary.port),
      // As the StatefulSet sets it from spec.version: the entrypoint checks its programs' major.
      [ENV.pgMajor]: pgMajor(),
      [ENV.podName]: podName,
      // The name the primary's certificate carries (verify-full).
      [ENV.primaryHost]: "localhost",
      ...credentialFiles(cluster, podName, { superuserPassword: cluster.password }),
    },
  };
}

/** Waits until `text` is among the last 200 lines of the server's log. */
export async function waitForLog(
  server: PgServer,
  text: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!server.logTail(200).includes(text)) {
    if (Date.now() > deadline)
      throw new Error(`${server.name}: no "${text}" in its log:\n${server.logTail()}`);
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}

/**
 * How the first pod of a Database created from a backup (bootstrap.recovery) would start:
 * postgresql.conf archiving into its own repository, the ConfigMap's recovery files, the source
 * store's keys in the environment, and a termination-message file. Nothing answers on the
 * "primary" address (this server's own port, before it starts).
 */
export function recoveryEntrypointFor(
  cluster: Cluster,
  server: PgServer,
  files: Record<string, string>,
  extra: { archiveScript: string; configDir: string; env: Record<string, string> },
) {
  const config = extra.configDir;
  const run = extra.env.PGKEEPER_RUN_DIR;
  const topology = cluster.ownedDir(`${server.name}-topology`);
  const script = writeInstanceConfig(
    cluster,
    server,
    { config, run },
    {
      archive_mode: "on",
      archive_command: `/bin/sh ${extra.archiveScript} "%p"`,
    },
  );
  cluster.writeOwned(path.join(config, "managed.conf"), "# managed parameters\n");
  for (const [name, text] of Object.entries(files))
    cluster.writeOwned(path.join(config, name), text, 0o644);
  const terminationLog = path.join(run, "termination-log");
  cluster.writeOwned(terminationLog, "");
  const env: Record<string, string> = {
    ...extra.env,
    PGDATA: server.dataDir,
    PG_BIN,
    PGHOST: server.socketDir,
    PGPORT: String(server.port),
    PGKEEPER_TOPOLOGY_DIR: topology,
    PGKEEPER_PORT: String(server.port),
    PGKEEPER_TERMINATION_LOG: terminationLog,
    PGKEEPER_TLS_DIR: cluster.tlsDir,
    [ENV.pgMajor]: pgMajor(),
    [ENV.podName]: `${server.name}`,
    [ENV.primaryHost]: "127.0.0.1",
    // Into the credentials directory the store's keys are in, as one volume holds them all.
    ...credentialFiles(
      cluster,
      server.name,
      { superuserPassword: cluster.password, appPassword: RESTORED_APP_PASSWORD },
      extra.env.PGKEEPER_CREDENTIALS_DIR,
    ),
  };
  return { terminationLog, command: "/bin/sh", args: [script], env };
}
