/**
 * The StatefulSet `<db>`: one pod and one data volume per instance.
 *
 * `updateStrategy: OnDelete`: the operator decides when each pod restarts (replicas first, the
 * primary last after a switchover); the StatefulSet controller never rolls pods on its own.
 * The pod template carries no role label (the operator labels pods) and no timestamp: only the
 * configuration hash, so the template changes only when the configuration does.
 *
 * Immutable after creation (changing them needs a new StatefulSet): selector, serviceName,
 * podManagementPolicy and volumeClaimTemplates. Growing storage is done on the PVCs.
 */
import type {
  V1Container,
  V1EnvVar,
  V1VolumeProjection,
  V1PersistentVolumeClaim,
  V1Probe,
  V1ResourceRequirements,
  V1StatefulSet,
  V1TopologySpreadConstraint,
  V1Volume,
} from "@kubernetes/client-node";
import type { ResolvedSpec } from "../api/defaults";
import {
  ANNOTATION_CONFIG_HASH,
  ANNOTATION_RESTARTED_AT,
  commonLabels,
  selectorLabels,
} from "../api/names";
import {
  CONFIG_DIR,
  CONFIG_VOLUME,
  CREDENTIAL_FILES,
  CREDENTIALS_DIR,
  CREDENTIALS_VOLUME,
  DATA_MOUNT,
  DATA_VOLUME,
  ENV,
  FILE_ENTRYPOINT,
  FILE_PGBACKREST_SERVER,
  BACKUP_TLS_DIR,
  BACKUP_TLS_VOLUME,
  PGBACKREST_CONTAINER,
  FILE_PROBE,
  PGBACKREST_CA_DIR,
  PGBACKREST_CA_FILE,
  PGBACKREST_CA_VOLUME,
  SOURCE_CA_DIR,
  SOURCE_CA_FILE,
  SOURCE_CA_VOLUME,
  PGDATA,
  POSTGRES_CONTAINER,
  POSTGRES_PORT,
  POSTGRES_PORT_NAME,
  RUN_DIR,
  RUN_VOLUME,
  SUPERUSER,
  TMP_VOLUME,
  TLS_DIR,
  TLS_VOLUME,
  TOPOLOGY_DIR,
  TOPOLOGY_VOLUME,
} from "./layout";
import { BuildInput, Child, childMeta, identity, namesOf } from "./meta";
import { PGBACKREST_TLS_PORT } from "./pgbackrest";
import { podScheduling, topologySpreadConstraints } from "./scheduling";
import {
  backupTlsVolume,
  caBundleVolume,
  credentialsVolume,
  REPO1_KEY_FILES,
  storeKeysProjection,
} from "./store-access";
import { imagePullSecrets } from "./image-pull";
import { metricsContainer } from "./metrics-sidecar";
import { containerSecurityContext, podSecurityContext } from "./security";

/**
 * Time for a fast shutdown (preStop) to finish its checkpoint before SIGKILL. A killed primary
 * needs crash recovery and may lose its place in a switchover, so this is generous; a healthy
 * shutdown takes a few seconds and does not wait for it.
 */
const TERMINATION_GRACE_SECONDS = 60;

/**
 * Started = the local server accepts connections on its Unix socket (a standby: once it reached
 * a consistent state), which `probe.sh ready` asks with pg_isready. It runs only until it first
 * succeeds, then never again in this container (ADR 0039): the kubelet runs an exec probe as a
 * process in the pod through the container runtime, and one every few seconds per instance for
 * the pod's whole life cost more CPU than the idle server. It also holds liveness off while the
 * server is not up yet: initdb, a pg_basebackup clone of a large primary, crash recovery. One
 * hour, as CloudNativePG's default startDelay.
 */
const STARTUP_PROBE: V1Probe = {
  exec: { command: ["/bin/sh", `${CONFIG_DIR}/${FILE_PROBE}`, "ready"] },
  periodSeconds: 5,
  timeoutSeconds: 5,
  failureThreshold: 720,
};

/**
 * A Database created from a backup: the first instance downloads the backup and replays the
 * source's WAL before its server accepts connections, which for a large database takes hours. A
 * day, so the kubelet never restarts a restore that is making progress; one that fails ends the
 * container itself.
 */
const RECOVERY_STARTUP_PROBE: V1Probe = { ...STARTUP_PROBE, failureThreshold: 17280 };

/*
 * No readiness probe: a container is ready once its startup probe succeeded, and stays so while
 * it runs. Whether a started server still serves is the operator's judgement, from its own SQL
 * probes: it takes a replica that stops answering or streaming out of `<db>-ro` by its role
 * label (serving.ts), and `<db>-rw` follows the primary label alone (ADR 0035). ADR 0039 says
 * what this gives up while the operator is down.
 */

/**
 * Liveness only asks whether the postmaster still listens. The HA logic, not the kubelet, judges
 * a slow or unhealthy instance: restarting a busy primary because a query-level check timed out
 * turns load into an outage. A dead postmaster ends the container anyway (it is PID 1).
 */
const LIVENESS_PROBE: V1Probe = {
  tcpSocket: { port: POSTGRES_PORT },
  periodSeconds: 10,
  timeoutSeconds: 5,
  failureThreshold: 6,
};

const fieldEnv = (name: string, fieldPath: string): V1EnvVar => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

function env(input: BuildInput): V1EnvVar[] {
  const names = namesOf(input);
  return [
    { name: "PGDATA", value: PGDATA },
    { name: ENV.pgMajor, value: input.spec.version },
    { name: ENV.dbName, value: identity(input.db).name },
    fieldEnv(ENV.podName, "metadata.name"),
    fieldEnv(ENV.podIP, "status.podIP"),
    { name: ENV.primaryHost, value: names.rwService },
    { name: ENV.headlessService, value: names.headlessService },
    // So psql and pg_isready in `kubectl exec` sessions reach the local server by default.
    { name: "PGHOST", value: RUN_DIR },
    { name: "PGPORT", value: String(POSTGRES_PORT) },
    { name: "PGUSER", value: SUPERUSER },
  ];
}

/** A Secret's `password` key as the file `path` of the credentials volume. */
const passwordFile = (secret: string, path: string): V1VolumeProjection => ({
  secret: { name: secret, items: [{ key: "password", path }] },
});

/** The passwords, and the keys of this Database's store and of its recovery source's. */
export function instanceCredentials(input: BuildInput): V1Volume {
  const names = namesOf(input);
  return credentialsVolume([
    passwordFile(names.superuserSecret, CREDENTIAL_FILES.superuserPassword),
    passwordFile(names.appSecret, CREDENTIAL_FILES.appPassword),
    ...storeKeysProjection(input.spec.backup?.objectStore?.credentials, REPO1_KEY_FILES),
    ...storeKeysProjection(input.spec.bootstrap?.recovery?.source.objectStore.credentials, {
      id: CREDENTIAL_FILES.sourceS3Key,
      secret: CREDENTIAL_FILES.sourceS3KeySecret,
    }),
  ]);
}

/** requests/limits from the spec; empty maps are left out. */
export function resources(spec: ResolvedSpec): V1ResourceRequirements {
  const clean = (list?: { cpu?: string; memory?: string }): Record<string, string> | undefined => {
    const entries = Object.entries(list ?? {}).filter(([, v]) => v !== undefined && v !== "");
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  };
  const requests = clean(spec.resources.requests);
  const limits = clean(spec.resources.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** What both containers of an instance mount: its data, configuration, socket and /tmp. */
const INSTANCE_MOUNTS = [
  { name: DATA_VOLUME, mountPath: DATA_MOUNT },
  { name: CONFIG_VOLUME, mountPath: CONFIG_DIR, readOnly: true },
  { name: RUN_VOLUME, mountPath: RUN_DIR },
  { name: TMP_VOLUME, mountPath: "/tmp" },
];

function postgresContainer(input: BuildInput): V1Container {
  return {
    name: POSTGRES_CONTAINER,
    image: input.spec.image,
    imagePullPolicy: "IfNotPresent",
    command: ["/bin/sh", `${CONFIG_DIR}/${FILE_ENTRYPOINT}`],
    env: env(input),
    ports: [{ name: POSTGRES_PORT_NAME, containerPort: POSTGRES_PORT, protocol: "TCP" }],
    startupProbe: input.spec.bootstrap?.recovery ? RECOVERY_STARTUP_PROBE : STARTUP_PROBE,
    livenessProbe: LIVENESS_PROBE,
    lifecycle: {
      preStop: { exec: { command: ["/bin/sh", `${CONFIG_DIR}/${FILE_PROBE}`, "stop"] } },
    },
    resources: resources(input.spec),
    securityContext: containerSecurityContext(),
    volumeMounts: [
      ...INSTANCE_MOUNTS,
      { name: TOPOLOGY_VOLUME, mountPath: TOPOLOGY_DIR, readOnly: true },
      { name: TLS_VOLUME, mountPath: TLS_DIR, readOnly: true },
      { name: CREDENTIALS_VOLUME, mountPath: CREDENTIALS_DIR, readOnly: true },
      ...(input.spec.backup?.objectStore?.ca
        ? [{ name: PGBACKREST_CA_VOLUME, mountPath: PGBACKREST_CA_DIR, readOnly: true }]
        : []),
      ...(input.spec.bootstrap?.recovery?.source.objectStore.ca
        ? [{ name: SOURCE_CA_VOLUME, mountPath: SOURCE_CA_DIR, readOnly: true }]
        : []),
    ],
  };
}

/**
 * The `pgbackrest` sidecar of a Database that backs up to an object store: `pgbackrest server`
 * (TLS, only the backup host's certificate) for the backup Jobs, which copy the data directory
 * and reach PostgreSQL through its socket from here. Small requests: it idles but for backups.
 */
function pgbackrestContainer(input: BuildInput): V1Container[] {
  if (!input.spec.backup?.objectStore) return [];
  return [
    {
      name: PGBACKREST_CONTAINER,
      image: input.spec.image,
      imagePullPolicy: "IfNotPresent",
      command: ["/bin/sh", `${CONFIG_DIR}/${FILE_PGBACKREST_SERVER}`],
      env: [
        { name: "PGDATA", value: PGDATA },
        { name: ENV.pgMajor, value: input.spec.version },
      ],
      ports: [{ name: "pgbackrest", containerPort: PGBACKREST_TLS_PORT, protocol: "TCP" }],
      resources: { requests: { cpu: "10m", memory: "32Mi" } },
      securityContext: containerSecurityContext(),
      volumeMounts: [
        ...INSTANCE_MOUNTS,
        { name: BACKUP_TLS_VOLUME, mountPath: BACKUP_TLS_DIR, readOnly: true },
      ],
    },
  ];
}

function volumes(input: BuildInput): V1Volume[] {
  return [
    { name: CONFIG_VOLUME, configMap: { name: namesOf(input).configMap } },
    { name: RUN_VOLUME, emptyDir: {} },
    { name: TMP_VOLUME, emptyDir: {} },
    { name: TOPOLOGY_VOLUME, configMap: { name: namesOf(input).topologyConfigMap } },
    // 0440 with the pod's fsGroup: root-owned and group-readable, which PostgreSQL and libpq
    // both accept for a key file; nobody else can read it.
    { name: TLS_VOLUME, secret: { secretName: namesOf(input).tlsSecret, defaultMode: 0o440 } },
    instanceCredentials(input),
    ...caVolume(input),
    ...(input.spec.backup?.objectStore ? [backupTlsVolume(input)] : []),
  ];
}

/** The object store's CA bundle, and the recovery source's (each only when set). */
export function caVolume(input: BuildInput): V1Volume[] {
  return [
    ...caBundleVolume(PGBACKREST_CA_VOLUME, PGBACKREST_CA_FILE, input.spec.backup?.objectStore?.ca),
    ...caBundleVolume(
      SOURCE_CA_VOLUME,
      SOURCE_CA_FILE,
      input.spec.bootstrap?.recovery?.source.objectStore.ca,
    ),
  ];
}

/** The per-instance data volume claim (`pgdata-<db>-<ordinal>`). */
function dataVolumeClaimTemplate(input: BuildInput): V1PersistentVolumeClaim {
  const { size, storageClassName } = input.spec.storage;
  return {
    metadata: { name: DATA_VOLUME, labels: commonLabels(identity(input.db).name) },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: size } },
      ...(storageClassName ? { storageClassName } : {}),
    },
  };
}

/** spec.scheduling.topologySpread, when there is any. */
const spread = (
  db: string,
  input: BuildInput,
): { topologySpreadConstraints?: V1TopologySpreadConstraint[] } => {
  const constraints = topologySpreadConstraints(db, input.spec.scheduling);
  return constraints.length > 0 ? { topologySpreadConstraints: constraints } : {};
};

/** kubectl's choice of container when none is named. */
const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

/** A rolling restart asked for (status.restart): its time in the template rolls every pod once. */
const restartedAt = (input: BuildInput): Record<string, string> => {
  const at = input.db.status?.restart?.requestedAt;
  return at ? { [ANNOTATION_RESTARTED_AT]: at } : {};
};

export function buildStatefulSet(input: BuildInput, configHash: string): Child<V1StatefulSet> {
  const db = identity(input.db).name;
  const names = namesOf(input);
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: childMeta(input, names.statefulSet),
    spec: {
      replicas: input.replicas ?? input.spec.instances,
      serviceName: names.headlessService,
      selector: { matchLabels: selectorLabels(db) },
      updateStrategy: { type: "OnDelete" },
      // Every instance starts at once. In order (OrderedReady), an instance that waits (a former
      // primary for the new one, a pod 0 without data for a primary to clone) would keep the
      // later ones, which the wait is for, from ever being created. Existing StatefulSets are
      // recreated without their pods to change it (the field is immutable).
      podManagementPolicy: "Parallel",
      // The claims outlive the StatefulSet: they are owned by the Database (reconcile/
      // claims-step.ts), so only deleting the Database deletes data, and a deleted StatefulSet is
      // recreated over the same volumes. Scaling down keeps them too, so scaling back up rejoins
      // the old volume with a short WAL catch-up instead of a full clone.
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      template: {
        metadata: {
          labels: { ...commonLabels(db), ...selectorLabels(db) },
          annotations: {
            [ANNOTATION_CONFIG_HASH]: configHash,
            ...restartedAt(input),
            // `kubectl logs` and `exec` without -c reach PostgreSQL, not a sidecar.
            [DEFAULT_CONTAINER_ANNOTATION]: POSTGRES_CONTAINER,
          },
        },
        spec: {
          containers: [
            postgresContainer(input),
            ...pgbackrestContainer(input),
            ...metricsContainer(input),
          ],
          volumes: volumes(input),
          securityContext: podSecurityContext(),
          // Their own ServiceAccount; PostgreSQL never talks to the Kubernetes API: no token.
          serviceAccountName: namesOf(input).serviceAccount,
          automountServiceAccountToken: false,
          ...imagePullSecrets(input.spec),
          terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
          // Service links put one env var per Service of the namespace into every container.
          enableServiceLinks: false,
          ...podScheduling(db, input.spec.scheduling),
          ...spread(db, input),
        },
      },
      volumeClaimTemplates: [dataVolumeClaimTemplate(input)],
    },
  };
}
