/**
 * What the instances run while spec.version is ahead of the data (ADR 0041): the data's major and
 * its image, until the upgrade Job converted the data; an instance recreated meanwhile (a drain,
 * a crash) starts the old image on the old data. Pure.
 */
import type { V1Container } from "@kubernetes/client-node";
import type { ResolvedSpec } from "../api/defaults";
import type { KubeObject } from "../cluster/cluster";
import { ENV, POSTGRES_CONTAINER } from "../specs/layout";
import type { UpgradeStatus } from "./decide";

/** A StatefulSet's postgres container: its image and PG_MAJOR. */
export interface Running {
  image?: string;
  version?: string;
}

/** What a StatefulSet's postgres container runs. */
export function runningIn(sts: KubeObject): Running {
  const template = (sts.spec as { template?: { spec?: { containers?: V1Container[] } } })?.template;
  const postgres = template?.spec?.containers?.find(c => c.name === POSTGRES_CONTAINER);
  const version = postgres?.env?.find(e => e.name === ENV.pgMajor)?.value;
  return { ...(postgres?.image ? { image: postgres.image } : {}), ...(version ? { version } : {}) };
}

/** The major the data directory is on: recorded, else what runs, else the spec's (a new Database). */
export const dataVersionOf = (
  recorded: string | undefined,
  running: Running,
  spec: ResolvedSpec,
): string => recorded ?? running.version ?? spec.version;

export function runtimeSpec(
  spec: ResolvedSpec,
  data: string,
  upgrade: UpgradeStatus | undefined,
  running: Running,
  imageFor: (version: string) => string,
): ResolvedSpec {
  if (data === spec.version) return spec;
  const image =
    upgrade?.from === data && upgrade.fromImage
      ? upgrade.fromImage
      : running.version === data && running.image
        ? running.image
        : imageFor(data);
  return { ...spec, version: data as ResolvedSpec["version"], image };
}
