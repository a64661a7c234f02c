/**
 * The credentials volume (specs/layout.ts) on the host: one file per credential in a directory
 * the servers' account owns, which the scripts find through PGKEEPER_CREDENTIALS_DIR.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { CREDENTIAL_FILES } from "../../../capabilities/database/specs/layout";
import type { Cluster } from "./cluster";

export type Credentials = Partial<Record<keyof typeof CREDENTIAL_FILES, string>>;

/** Writes `credentials` as files into `dir` (made, for `name`, when absent); returns the scripts' variable naming it. */
export function credentialFiles(
  cluster: Cluster,
  name: string,
  credentials: Credentials,
  dir?: string,
): { PGKEEPER_CREDENTIALS_DIR: string } {
  const mine = path.join(cluster.root, `${name}-credentials`);
  const into = dir ?? (existsSync(mine) ? mine : cluster.ownedDir(`${name}-credentials`));
  for (const [key, value] of Object.entries(credentials))
    cluster.writeOwned(path.join(into, CREDENTIAL_FILES[key as keyof Credentials]), value ?? "");
  return { PGKEEPER_CREDENTIALS_DIR: into };
}

/** Repository 1's keys as pgBackRest's variables, read from a credentials directory. */
export function repo1KeysIn(dir: string | undefined): Record<string, string> {
  const file = (name: string) => (dir ? path.join(dir, name) : "");
  if (!dir || !existsSync(file(CREDENTIAL_FILES.repo1S3Key))) return {};
  return {
    PGBACKREST_REPO1_S3_KEY: readFileSync(file(CREDENTIAL_FILES.repo1S3Key), "utf8"),
    PGBACKREST_REPO1_S3_KEY_SECRET: readFileSync(file(CREDENTIAL_FILES.repo1S3KeySecret), "utf8"),
  };
}
