import { input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { spawnSync } from "node:child_process";
import { buildBackupJob, BackupJobRequest } from "./backup-job";
import { FULL_BACKUPS_TO_KEEP_AWK } from "./scripts/backup-job";

const STORE = {
  endpoint: "s3.internal:9000",
  bucket: "pg",
  credentials: { secretName: "s3" },
  ca: { secretName: "s3-ca" },
};
const OWNER = { apiVersion: "pgkeeper.dev/v1alpha1", kind: "Backup", name: "nightly", uid: "b-1" };
const request = (over: Partial<BackupJobRequest> = {}): BackupJobRequest => ({
  name: "nightly",
  owner: OWNER,
  type: "full",
  instances: ["orders-0", "orders-1"],
  verify: false,
  ...over,
});
const job = (over: Partial<BackupJobRequest> = {}) =>
  buildBackupJob(input({ backup: { objectStore: STORE, retention: 3 } }), request(over))!;
const env = (j: ReturnType<typeof job>) =>
  Object.fromEntries(
    j.spec!.template.spec!.containers[0].env!.map(e => [e.name, e.value ?? e.valueFrom]),
  );

describe("buildBackupJob", () => {
  it("is owned by the Backup, never the Database, and tries once", () => {
    const j = job();
    expect(j.metadata!.ownerReferences).toEqual([OWNER]);
    expect(j.spec!.backoffLimit).toBe(0);
    expect(j.metadata!.labels).toMatchObject({
      "pgkeeper.dev/backup": "nightly",
      "app.kubernetes.io/managed-by": "pgkeeper",
    });
  });

  it("reaches the primary first, then the standby it copies from, by names the certificate covers", () => {
    const conf = env(job()).PGKEEPER_PGBACKREST_CONF as string;
    expect(conf).toContain(`pg1-host=orders-0.orders-hl.${NAMESPACE}.svc`);
    expect(conf).toContain(`pg2-host=orders-1.orders-hl.${NAMESPACE}.svc`);
    expect(conf).toContain("backup-standby=y");
    expect(conf).toContain("pg1-host-cert-file=/pgbackrest-tls/client.crt");
    expect(conf).toContain("repo1-retention-full=3");
    expect(conf).toContain("repo1-storage-ca-file=/pgbackrest-ca/ca.crt");
    expect(conf).not.toMatch(/s3-key/i); // keys come from the Secret, as files
  });

  it("copies from the primary alone when given only the primary", () => {
    const conf = env(job({ instances: ["orders-0"] })).PGKEEPER_PGBACKREST_CONF as string;
    expect(conf).not.toContain("pg2-host");
    expect(conf).not.toContain("backup-standby");
  });

  it("passes type and verify, and the store's keys from the user's Secret as files (never environment)", () => {
    const built = job({ type: "incr", verify: true });
    expect(env(built)).toMatchObject({ PGKEEPER_BACKUP_TYPE: "incr", PGKEEPER_BACKUP_VERIFY: "y" });
    expect(Object.keys(env(built)).filter(name => /S3_KEY/.test(name))).toEqual([]);
    const pod = built.spec!.template.spec!;
    expect(pod.containers[0].volumeMounts).toContainEqual({
      name: "credentials",
      mountPath: "/credentials",
      readOnly: true,
    });
    expect(pod.volumes).toContainEqual({
      name: "credentials",
      projected: {
        defaultMode: 0o440,
        sources: [
          {
            secret: {
              name: "s3",
              items: [
                { key: "accessKeyId", path: "repo1-s3-key" },
                { key: "secretAccessKey", path: "repo1-s3-key-secret" },
              ],
            },
          },
        ],
      },
    });
  });

  it("runs as the Database's own ServiceAccount, with the client certificate and the store's CA and no service account token", () => {
    const spec = job().spec!.template.spec!;
    expect(spec.serviceAccountName).toBe("orders-postgres");
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.volumes!.map(v => v.secret?.secretName).filter(Boolean)).toEqual([
      "orders-backup-tls",
      "s3-ca",
    ]);
    expect(spec.containers[0].terminationMessagePolicy).toBe("File");
  });

  it("builds nothing for a Database without an object store", () => {
    expect(buildBackupJob(input(), request())).toBeUndefined();
  });

  it("with retentionDays, leaves expiry to the script: the count becomes its minimum", () => {
    const aged = buildBackupJob(
      input({ backup: { objectStore: STORE, retention: 3, retentionDays: 14 } }),
      request(),
    )!;
    expect(env(aged).PGKEEPER_PGBACKREST_CONF).toContain("repo1-retention-full=9999999");
    expect(env(aged)).toMatchObject({
      PGKEEPER_RETENTION_FULL: "3",
      PGKEEPER_RETENTION_DAYS: "14",
    });
    expect(env(job())).not.toHaveProperty("PGKEEPER_RETENTION_DAYS");
  });
});

describe("the full backups a retention of count and days keeps (awk)", () => {
  const DAY = 86400;
  const NOW = 100 * DAY;
  /** Backups as "<stop> <type>" lines, oldest first. */
  const keep = (lines: string[], min: number, days: number) =>
    spawnSync(
      "awk",
      ["-v", `min=${min}`, "-v", `days=${days}`, "-v", `now=${NOW}`, FULL_BACKUPS_TO_KEEP_AWK],
      { input: lines.map(l => `${l}\n`).join(""), encoding: "utf8" },
    );
  const at = (daysAgo: number, type = "full") => `${NOW - daysAgo * DAY} ${type}`;

  it.each<[string, string[], number, number, number]>([
    ["all within the window: every one, beyond the count", [at(3), at(2), at(1)], 1, 7, 3],
    ["one before the window: kept, restores reach the window's start", [at(9), at(3)], 1, 7, 2],
    ["two before the window: only the newer of them", [at(10), at(9), at(3)], 1, 7, 2],
    ["none within the window: the newest", [at(30), at(20)], 1, 7, 1],
    ["the count wins when larger", [at(30), at(20), at(10), at(1)], 3, 7, 3],
    [
      "differential and incremental backups do not count",
      [at(9), at(3, "diff"), at(2, "incr"), at(1)],
      1,
      7,
      2,
    ],
    ["a backup ending exactly at the window's start is inside", [at(7), at(1)], 1, 7, 2],
  ])("%s", (_, lines, min, days, expected) => {
    const result = keep(lines, min, days);
    expect(result.status).toBe(0);
    expect(Number(result.stdout.trim())).toBe(expected);
  });

  it("fails on no full backup at all, rather than expiring on a guess", () => {
    expect(keep([], 1, 7).status).not.toBe(0);
    expect(keep([at(1, "diff")], 1, 7).status).not.toBe(0);
  });
});
