import type { V1EnvVar } from "@kubernetes/client-node";
import { buildBackupCronJob, buildBackupVolumeClaim } from "./backup";
import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ownerReference } from "./meta";
import { BACKUP_SH } from "./scripts/backup";
import type { DatabaseSpec } from "../api/database-schema";

const volume = { size: "20Gi" };
const scheduled: DatabaseSpec["backup"] = { schedule: "0 3 * * *", retention: 5, volume };

describe("presence", () => {
  it.each<[string, DatabaseSpec["backup"], boolean, boolean]>([
    ["no backup section", undefined, false, false],
    ["volume only (schedule removed: backups kept)", { volume }, false, true],
    ["schedule and volume", scheduled, true, true],
  ])("%s: CronJob %p, volume claim %p", (_, backup, cron, claim) => {
    expect(buildBackupCronJob(input({ backup })) !== undefined).toBe(cron);
    expect(buildBackupVolumeClaim(input({ backup })) !== undefined).toBe(claim);
  });
});

describe("buildBackupCronJob", () => {
  const cj = buildBackupCronJob(input({ backup: scheduled, version: "17" }))!;
  const pod = cj.spec!.jobTemplate.spec!.template.spec!;
  const c = pod.containers[0];
  const env = Object.fromEntries((c.env ?? []).map(e => [e.name, e])) as Record<string, V1EnvVar>;

  it.each([
    ["apiVersion", "batch/v1"],
    ["kind", "CronJob"],
    ["metadata.name", `${DB_NAME}-backup`],
    ["metadata.namespace", NAMESPACE],
    ["spec.schedule", "0 3 * * *"],
    ["spec.concurrencyPolicy", "Forbid"],
    ["spec.successfulJobsHistoryLimit", 3],
    ["spec.failedJobsHistoryLimit", 3],
    ["spec.startingDeadlineSeconds", 3600],
    ["spec.jobTemplate.spec.backoffLimit", 2],
  ])("sets %s", (path, expected) => {
    expect(cj).toHaveProperty(path.split("."), expected);
  });

  it("carries the common labels and one owner reference", () => {
    expect(cj.metadata.labels["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(cj.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
  });

  it("labels backup pods as backup, never as instances (Services and budgets select instances)", () => {
    const labels = cj.spec!.jobTemplate.spec!.template.metadata!.labels!;
    expect(labels["app.kubernetes.io/component"]).toBe("backup");
    expect(labels["pgkeeper.dev/database"]).toBe(DB_NAME);
    expect(labels).not.toHaveProperty(["pgkeeper.dev/role"]);
  });

  it.each([
    ["restartPolicy", "Never"],
    ["enableServiceLinks", false],
  ])("pod %s", (field, expected) => {
    expect(pod).toHaveProperty(field, expected);
  });

  it.each([
    ["name", "backup"],
    ["image", "postgres:17"],
    ["imagePullPolicy", "IfNotPresent"],
    ["command", ["/bin/sh", "-c", BACKUP_SH]],
  ])("container %s", (field, expected) => {
    expect(c).toHaveProperty(field, expected);
  });

  it.each([
    ["PGHOST", { value: `${DB_NAME}-rw` }],
    ["PGPORT", { value: "5432" }],
    ["PGUSER", { value: "postgres" }],
    ["PG_MAJOR", { value: "17" }],
    ["BACKUP_RETENTION", { value: "5" }],
    [
      "PGPASSWORD",
      { valueFrom: { secretKeyRef: { name: `${DB_NAME}-superuser`, key: "password" } } },
    ],
  ])("env %s", (name, expected) => {
    expect(env[name]).toEqual({ name, ...expected });
  });

  it("uses the default retention (7) when unset", () => {
    const job = buildBackupCronJob(input({ backup: { schedule: "@daily", volume } }))!;
    const vars = job.spec!.jobTemplate.spec!.template.spec!.containers[0].env ?? [];
    expect(vars.find(e => e.name === "BACKUP_RETENTION")?.value).toBe("7");
  });

  it("mounts the backup claim", () => {
    expect(pod.volumes).toContainEqual({
      name: "backups",
      persistentVolumeClaim: { claimName: `${DB_NAME}-backups` },
    });
    expect(c.volumeMounts).toContainEqual({ name: "backups", mountPath: "/backups" });
  });

  it("runs restricted, as the postgres uid", () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999, fsGroup: 999 });
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
  });

  it("follows nodeSelector and tolerations but not the instance anti-affinity", () => {
    const tolerations = [{ key: "db", operator: "Exists" }];
    const job = buildBackupCronJob(
      input({
        backup: scheduled,
        scheduling: { nodeSelector: { pool: "db" }, tolerations, antiAffinity: "required" },
      }),
    )!;
    const spec = job.spec!.jobTemplate.spec!.template.spec!;
    expect(spec.nodeSelector).toEqual({ pool: "db" });
    expect(spec.tolerations).toEqual(tolerations);
    expect(spec.affinity).toBeUndefined();
  });
});

describe("buildBackupVolumeClaim", () => {
  it.each([
    [
      { size: "20Gi" },
      { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } },
    ],
    [
      { size: "1Ti", storageClassName: "cold" },
      {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Ti" } },
        storageClassName: "cold",
      },
    ],
  ])("for %p", (vol, spec) => {
    const pvc = buildBackupVolumeClaim(input({ backup: { ...scheduled, volume: vol } }))!;
    expect(pvc).toMatchObject({ apiVersion: "v1", kind: "PersistentVolumeClaim" });
    expect(pvc.metadata.name).toBe(`${DB_NAME}-backups`);
    expect(pvc.metadata.namespace).toBe(NAMESPACE);
    expect(pvc.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
    expect(pvc.spec).toEqual(spec);
  });
});
