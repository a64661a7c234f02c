import { DB_NAME, fixtureTls, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { CHILD_KINDS } from "../api/kinds";
import { configHash, desiredChildren, obsoleteChildren } from "./index";
import { ownerReference } from "./meta";
import type { DatabaseSpec } from "../api/database-schema";

const passwords = { superuser: "su-pw", app: "app-pw" };
const store = { endpoint: "s3.internal", bucket: "pg", credentials: { secretName: "s3" } };
const backup: DatabaseSpec["backup"] = { schedule: "@daily", objectStore: store };
const names = (spec: Partial<DatabaseSpec>) =>
  desiredChildren(input(spec), passwords, { tls: fixtureTls() }, "pepr-system").map(
    o => `${o.kind}/${o.metadata.name}`,
  );

/** What every Database has before its pods, in apply order. */
const BEFORE_PODS = [
  `Secret/${DB_NAME}-ca`,
  `Secret/${DB_NAME}-tls`,
  `Secret/${DB_NAME}-superuser`,
  `Secret/${DB_NAME}-app`,
  `ConfigMap/${DB_NAME}-config`,
  `ConfigMap/${DB_NAME}-topology`,
  `Service/${DB_NAME}-rw`,
  `Service/${DB_NAME}-ro`,
  `Service/${DB_NAME}-hl`,
];

/** The pods' own ServiceAccount, then the pods. */
const PODS = [`ServiceAccount/${DB_NAME}-postgres`, `StatefulSet/${DB_NAME}`];

describe("desiredChildren", () => {
  it.each<[string, Partial<DatabaseSpec>, string[]]>([
    ["1 instance, no backup", {}, [...BEFORE_PODS, ...PODS]],
    [
      "3 instances with backups",
      { instances: 3, backup },
      [
        ...BEFORE_PODS,
        ...PODS,
        `PodDisruptionBudget/${DB_NAME}-primary`,
        `PodDisruptionBudget/${DB_NAME}-replicas`,
      ],
    ],
    [
      "a NetworkPolicy: after the Services, before the pods",
      { networkPolicy: { enabled: true } },
      [...BEFORE_PODS, `NetworkPolicy/${DB_NAME}`, ...PODS],
    ],
  ])("%s, in apply order", (_, spec, expected) => {
    expect(names(spec)).toEqual(expected);
  });

  const everything = () =>
    desiredChildren(
      input({ instances: 3, backup, networkPolicy: { enabled: true } }),
      passwords,
      { tls: fixtureTls() },
      "pepr-system",
    );
  const all = everything();

  it.each(all.map(o => [`${o.kind}/${o.metadata.name}`, o] as const))(
    "%s: namespace, labels, owner, apiVersion and kind",
    (_, obj) => {
      expect(obj.metadata.namespace).toBe(NAMESPACE);
      expect(obj.metadata.labels).toMatchObject({
        "pgkeeper.dev/database": DB_NAME,
        "app.kubernetes.io/managed-by": "pgkeeper",
      });
      expect(obj.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
      expect(CHILD_KINDS).toContainEqual({ apiVersion: obj.apiVersion, kind: obj.kind });
    },
  );

  it("puts the ConfigMap's hash on the pod template", () => {
    const cm = all.find(o => o.kind === "ConfigMap")!;
    const sts = all.find(o => o.kind === "StatefulSet")!;
    expect(sts).toHaveProperty(
      ["spec", "template", "metadata", "annotations", "pgkeeper.dev/config-hash"],
      configHash(cm),
    );
  });

  it("passes the passwords to the Secrets", () => {
    const decoded = all
      .filter(o => o.kind === "Secret" && o.metadata.name.match(/-(superuser|app)$/))
      .map(o =>
        Buffer.from((o as { data: Record<string, string> }).data.password, "base64").toString(),
      );
    expect(decoded).toEqual(["su-pw", "app-pw"]);
  });

  it("is pure: the same input gives equal objects", () => {
    expect(everything()).toEqual(all);
  });
});

describe("obsoleteChildren", () => {
  const pdbPrimary = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    name: `${DB_NAME}-primary`,
  };
  const pdbReplicas = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    name: `${DB_NAME}-replicas`,
  };
  const cron = { apiVersion: "batch/v1", kind: "CronJob", name: `${DB_NAME}-backup` };
  const tls = { apiVersion: "v1", kind: "Secret", name: `${DB_NAME}-backup-tls` };
  const policy = { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", name: DB_NAME };
  const guarded = { networkPolicy: { enabled: true } };
  it.each<[string, Partial<DatabaseSpec>, object[]]>([
    ["1 instance, no backup", {}, [pdbPrimary, pdbReplicas, cron, tls, policy]],
    ["2 instances", { instances: 2 }, [pdbReplicas, cron, tls, policy]],
    ["3 instances", { instances: 3 }, [cron, tls, policy]],
    [
      "3 instances with a schedule: an earlier version's CronJob",
      { instances: 3, backup },
      [cron, policy],
    ],
    [
      "an earlier version's backup volume: its CronJob, never its claim",
      { instances: 3, backup: { schedule: "@daily", volume: { size: "5Gi" } } },
      [cron, tls, policy],
    ],
    ["a NetworkPolicy wanted: not obsolete", { instances: 3, ...guarded }, [cron, tls]],
    [
      "a NetworkPolicy turned off: obsolete",
      { networkPolicy: { enabled: false } },
      [pdbPrimary, pdbReplicas, cron, tls, policy],
    ],
  ])("%s", (_, spec, expected) => {
    expect(obsoleteChildren(input(spec))).toEqual(expected);
  });

  it.each([{}, { instances: 3, backup }, { backup: { volume: { size: "1Gi" } } }])(
    "never lists a desired child or the backup volume of an earlier version (%p)",
    spec => {
      const desired = names(spec);
      for (const o of obsoleteChildren(input(spec))) {
        expect(desired).not.toContain(`${o.kind}/${o.name}`);
        expect(o.kind).not.toBe("PersistentVolumeClaim");
      }
    },
  );
});
