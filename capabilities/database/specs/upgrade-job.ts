/**
 * The Jobs of a major upgrade (ADR 0041), on the primary's data claim while its instance serves
 * (the check, the commit: beside it, on its node) or is stopped (the conversion):
 *
 * - `<db>-upgrade-check`: the same two images; the new one runs `upgrade.sh check live` against
 *   the serving primary, through its socket on the data volume, which it mounts read-only. Its
 *   refusal names each failed check before anything stops.
 * - `<db>-upgrade`: the old major's image exports its programs into a shared emptyDir (an init
 *   container), then the new major's image runs `upgrade.sh job`: pg_upgrade --copy beside the
 *   old data directory, the statistics and the repository's stanza, or a rollback with the
 *   reason in its termination message.
 * - `<db>-upgrade-commit`: deletes the kept old data directory once the new major has a backup.
 *
 * Owned by the Database. The script is the container's command (not the ConfigMap's), so the
 * instances' configuration, and the restart its change would roll out, stay as they are.
 */
import type { V1Container, V1Job } from "@kubernetes/client-node";
import { LABEL_COMPONENT } from "../api/names";
import {
  CONFIG_DIR,
  CONFIG_VOLUME,
  CREDENTIALS_DIR,
  CREDENTIALS_VOLUME,
  DATA_MOUNT,
  DATA_VOLUME,
  ENV,
  PGBACKREST_CA_DIR,
  PGBACKREST_CA_VOLUME,
  PGDATA,
  RUN_DIR,
  RUN_VOLUME,
  TMP_VOLUME,
  UPGRADE_DIR,
} from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { podScheduling } from "./scheduling";
import { UPGRADE_SH } from "./scripts/upgrade";
import { containerSecurityContext } from "./security";
import { jobPodBasics } from "./job-pod";
import { caVolume, instanceCredentials, resources } from "./statefulset";

/** On the upgrade Jobs and their pods (never an instance's component). */
export const UPGRADE_COMPONENT = "upgrade";
export const UPGRADE_CONTAINER = "upgrade";
const UPGRADE_VOLUME = "upgrade";

export type UpgradeJobStep = "check" | "convert" | "commit";
export const UPGRADE_JOB_STEPS: readonly UpgradeJobStep[] = ["check", "convert", "commit"];

export const upgradeJobName = (db: string, step: UpgradeJobStep): string =>
  step === "convert" ? `${db}-upgrade` : `${db}-upgrade-${step}`;

/** What each step's container runs (upgrade.sh's subcommand and its argument). */
const SCRIPT_ARGS: Record<UpgradeJobStep, string[]> = {
  check: ["check", "live"],
  convert: ["job"],
  commit: ["commit"],
};

export interface UpgradeJobRequest {
  step: UpgradeJobStep;
  /** The instance whose data directory is upgraded (its claim is `pgdata-<instance>`). */
  primary: string;
  /** The old major and its image, whose programs pg_upgrade needs. */
  from: string;
  fromImage: string;
}

/** `upgrade.sh <subcommand> [argument]` as a container's command: the script is sh's `-c` text. */
const upgradeCommand = (...args: string[]): string[] => [
  "/bin/sh",
  "-c",
  UPGRADE_SH,
  "upgrade.sh",
  ...args,
];

const scratchMounts = [
  { name: UPGRADE_VOLUME, mountPath: UPGRADE_DIR },
  { name: TMP_VOLUME, mountPath: "/tmp" },
];

function exportRuntime(input: BuildInput, req: UpgradeJobRequest): V1Container {
  return {
    name: "export-runtime",
    image: req.fromImage,
    imagePullPolicy: "IfNotPresent",
    command: upgradeCommand("export-runtime"),
    env: [
      { name: "PGDATA", value: PGDATA },
      { name: ENV.pgMajor, value: req.from },
    ],
    terminationMessagePolicy: "File",
    securityContext: containerSecurityContext(),
    resources: resources(input.spec),
    volumeMounts: scratchMounts,
  };
}

function upgradeContainer(input: BuildInput, req: UpgradeJobRequest): V1Container {
  return {
    name: UPGRADE_CONTAINER,
    image: input.spec.image,
    imagePullPolicy: "IfNotPresent",
    command: upgradeCommand(...SCRIPT_ARGS[req.step]),
    env: [
      { name: "PGDATA", value: PGDATA },
      { name: ENV.pgMajor, value: input.spec.version },
    ],
    terminationMessagePolicy: "File",
    securityContext: containerSecurityContext(),
    resources: resources(input.spec),
    volumeMounts: [
      // The check only reads the live primary's data directory.
      {
        name: DATA_VOLUME,
        mountPath: DATA_MOUNT,
        ...(req.step === "check" ? { readOnly: true } : {}),
      },
      { name: CONFIG_VOLUME, mountPath: CONFIG_DIR, readOnly: true },
      { name: RUN_VOLUME, mountPath: RUN_DIR },
      { name: CREDENTIALS_VOLUME, mountPath: CREDENTIALS_DIR, readOnly: true },
      ...(input.spec.backup?.objectStore?.ca
        ? [{ name: PGBACKREST_CA_VOLUME, mountPath: PGBACKREST_CA_DIR, readOnly: true }]
        : []),
      ...scratchMounts,
    ],
  };
}

/** The label the StatefulSet controller puts on each of its pods. */
const POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name";

/**
 * The user's scheduling, and the serving primary's node required: a volume that does not pin its
 * pods to a node (network block storage) is attached to that node while the primary runs. (The
 * conversion, with every instance stopped, goes where the claim can be attached.)
 */
function besideThePrimary(
  scheduling: ReturnType<typeof podScheduling>,
  primary: string,
): ReturnType<typeof podScheduling> {
  const affinity = scheduling.affinity ?? {};
  const required = affinity.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  return {
    ...scheduling,
    affinity: {
      ...affinity,
      podAffinity: {
        ...affinity.podAffinity,
        requiredDuringSchedulingIgnoredDuringExecution: [
          ...required,
          {
            labelSelector: { matchLabels: { [POD_NAME_LABEL]: primary } },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    },
  };
}

/** The Job of one step; `input` is the new major's (spec.version and its image). */
export function buildUpgradeJob(input: BuildInput, req: UpgradeJobRequest): Child<V1Job> {
  const db = identity(input.db).name;
  const meta = childMeta(input, upgradeJobName(db, req.step), {
    [LABEL_COMPONENT]: UPGRADE_COMPONENT,
  });
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta,
    spec: {
      // The check and the conversion once: a refusal is the user's to answer, and any failure
      // of the conversion, a kill included, brings the old major back (the entrypoint undoes a
      // swap the Job did not finish); a retry is the user's. The commit, which deletes a
      // directory, a few times.
      backoffLimit: req.step === "commit" ? 3 : 0,
      template: {
        metadata: { labels: meta.labels },
        spec: {
          ...jobPodBasics(input),
          ...(req.step === "commit" ? {} : { initContainers: [exportRuntime(input, req)] }),
          containers: [upgradeContainer(input, req)],
          volumes: [
            // ReadWriteOnce is per node: beside the serving primary (the check, the commit), the
            // pod must run on its node (scheduling below).
            {
              name: DATA_VOLUME,
              persistentVolumeClaim: { claimName: `${DATA_VOLUME}-${req.primary}` },
            },
            { name: CONFIG_VOLUME, configMap: { name: namesOf(input).configMap } },
            { name: RUN_VOLUME, emptyDir: {} },
            { name: TMP_VOLUME, emptyDir: {} },
            { name: UPGRADE_VOLUME, emptyDir: {} },
            instanceCredentials(input),
            ...caVolume(input),
          ],
          ...(req.step === "convert"
            ? podScheduling(db, input.spec.scheduling, false)
            : besideThePrimary(podScheduling(db, input.spec.scheduling, false), req.primary)),
        },
      },
    },
  };
}
