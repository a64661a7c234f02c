/**
 * A primary archiving as an instance pod does: archive_command is the real pgbackrest-archive.sh,
 * pushing through pgBackRest (the host's, the version the image has) into the test's object
 * store, with the configuration the operator renders. The pod's paths are overridden through
 * pgBackRest's environment, which takes precedence over the file.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { FILE_ARCHIVE } from "../../../capabilities/database/specs/layout";
import {
  ObjectStore as StoreSettings,
  pgbackrestConf,
  repositoryPath,
  STANZA,
} from "../../../capabilities/database/specs/pgbackrest";
import { ARCHIVE_SH } from "../../../capabilities/database/specs/scripts/archive";
import { bin } from "./os";
import { Cluster } from "./cluster";
import { credentialFiles, repo1KeysIn } from "./credentials";
import { ObjectStore } from "./object-store";
import { PgServer } from "./server";

export const STORE_PATH = "/backups";

export interface Repository {
  namespace: string;
  name: string;
  uid: string;
}

/** The operator's settings for the test store (its CA given as a file). */
export const storeSettings = (store: ObjectStore): StoreSettings => ({
  endpoint: store.endpoint,
  bucket: store.bucket,
  path: STORE_PATH,
  region: "us-east-1",
  uriStyle: "path",
  caFile: store.caFile,
});

export interface Archiving {
  server: PgServer;
  /** pgBackRest's environment for this server (keys, its paths). */
  env: Record<string, string>;
  /** pgbackrest.conf as the operator renders it. */
  conf: string;
  repository: string;
}

/** The configuration directory of pod `name`: pgbackrest.conf and pgbackrest-archive.sh. */
export function archiveConfig(
  cluster: Cluster,
  store: ObjectStore,
  config: string,
  db: Repository,
): { conf: string; script: string; repository: string } {
  const repository = repositoryPath({ path: STORE_PATH }, db);
  const conf = path.join(config, "pgbackrest.conf");
  cluster.writeOwned(conf, pgbackrestConf(storeSettings(store), repository));
  const script = path.join(config, FILE_ARCHIVE);
  writeFileSync(script, ARCHIVE_SH, { mode: 0o755 });
  return { conf, script, repository };
}

/**
 * pgBackRest's environment for `server` (paths of the pod overridden for the host). The store's
 * keys are files of its credentials directory, as the pod has them: never variables here, so
 * archive_command proves it reads the files.
 */
export function pgbackrestEnv(
  cluster: Cluster,
  store: ObjectStore,
  server: PgServer,
  config: string,
  run: string,
): Record<string, string> {
  return {
    ...credentialFiles(cluster, server.name, {
      repo1S3Key: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY,
      repo1S3KeySecret: store.credentialsEnv.PGBACKREST_REPO1_S3_KEY_SECRET,
    }),
    PGKEEPER_CONFIG_DIR: config,
    PGKEEPER_RUN_DIR: run,
    PGBACKREST_PG1_PATH: server.dataDir,
    PGBACKREST_PG1_PORT: String(server.port),
    PGBACKREST_PG1_SOCKET_PATH: server.socketDir,
    PGBACKREST_SPOOL_PATH: cluster.ownedDir(`${server.name}-spool`),
    PGBACKREST_LOCK_PATH: cluster.ownedDir(`${server.name}-lock`),
  };
}

/** A new primary archiving through archive.sh into `db`'s repository. */
export async function archivingPrimary(
  cluster: Cluster,
  store: ObjectStore,
  name: string,
  db: Repository,
): Promise<Archiving> {
  const config = cluster.ownedDir(`${name}-config`);
  const run = cluster.ownedDir(`${name}-run`);
  const { conf, script, repository } = archiveConfig(cluster, store, config, db);
  const server = await cluster.primary(name);
  server.sql("ALTER SYSTEM SET archive_mode = on");
  server.sql(`ALTER SYSTEM SET archive_command = '/bin/sh ${script} "%p"'`);
  const env = pgbackrestEnv(cluster, store, server, config, run);
  await server.stop("fast");
  await server.start(60_000, { command: bin("postgres"), args: ["-D", server.dataDir], env });
  return { server, env, conf, repository };
}

/**
 * pgbackrest against a repository (check, backup, info), as the servers' account, with the keys
 * of `env`'s credentials directory as the scripts give them.
 */
export function pgbackrest(
  cluster: Cluster,
  env: Record<string, string>,
  config: string,
  ...args: string[]
): string {
  return execFileSync("pgbackrest", [`--config=${config}`, `--stanza=${STANZA}`, ...args], {
    ...cluster.account,
    encoding: "utf8",
    env: { PATH: process.env.PATH, ...env, ...repo1KeysIn(env.PGKEEPER_CREDENTIALS_DIR) },
  });
}
