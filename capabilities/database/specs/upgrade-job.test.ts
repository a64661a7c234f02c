import { input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { buildUpgradeJob, UpgradeJobRequest } from "./upgrade-job";

const STORE = {
  endpoint: "s3.internal:9000",
  bucket: "pg",
  credentials: { secretName: "s3" },
  ca: { secretName: "s3-ca" },
};
const request = (over: Partial<UpgradeJobRequest> = {}): UpgradeJobRequest => ({
  step: "convert",
  primary: "orders-1",
  from: "15",
  fromImage: "registry.example/postgres:15",
  ...over,
});
const job = (over: Partial<UpgradeJobRequest> = {}, spec: Record<string, unknown> = {}) =>
  buildUpgradeJob(
    input({ version: "17", image: "registry.example/postgres:17", ...spec }),
    request(over),
  );

describe("buildUpgradeJob", () => {
  it("converts on the primary's claim: the old image exports its programs, the new one runs", () => {
    const j = job();
    const pod = j.spec!.template.spec!;
    expect(j.metadata).toMatchObject({ name: "orders-upgrade", namespace: NAMESPACE });
    expect(j.metadata.ownerReferences[0].kind).toBe("Database");
    expect(pod.volumes!.find(v => v.name === "pgdata")?.persistentVolumeClaim).toEqual({
      claimName: "pgdata-orders-1",
    });
    const [init] = pod.initContainers!;
    expect(init.image).toBe("registry.example/postgres:15");
    expect(init.command!.slice(-1)).toEqual(["export-runtime"]);
    expect(init.env).toContainEqual({ name: "PG_MAJOR", value: "15" });
    const [main] = pod.containers;
    expect(main.image).toBe("registry.example/postgres:17");
    expect(main.command!.slice(-1)).toEqual(["job"]);
    expect(main.env).toContainEqual({ name: "PG_MAJOR", value: "17" });
    // Both see the exported programs; only the new image mounts the data.
    expect(init.volumeMounts!.map(m => m.mountPath)).toContain("/upgrade");
    expect(init.volumeMounts!.map(m => m.name)).not.toContain("pgdata");
    expect(main.volumeMounts!.map(m => m.mountPath)).toEqual(
      expect.arrayContaining(["/upgrade", "/var/lib/postgresql/data", "/config"]),
    );
    expect(j.spec!.backoffLimit).toBe(0);
  });

  it("never looks like an instance: its own component, no instance selector labels", () => {
    const labels = job().spec!.template.metadata!.labels!;
    expect(labels["app.kubernetes.io/component"]).toBe("upgrade");
    expect(labels["pgkeeper.dev/database"]).toBe("orders");
  });

  it("commits with the new image alone, beside the running primary", () => {
    const j = job({ step: "commit" });
    const pod = j.spec!.template.spec!;
    expect(j.metadata.name).toBe("orders-upgrade-commit");
    expect(pod.initContainers).toBeUndefined();
    expect(pod.containers[0].command!.slice(-1)).toEqual(["commit"]);
    expect(j.spec!.backoffLimit).toBe(3);
  });

  it("checks against the serving primary: both images, its data read-only, on its node, once", () => {
    const j = job({ step: "check" });
    const pod = j.spec!.template.spec!;
    expect(j.metadata.name).toBe("orders-upgrade-check");
    expect(pod.initContainers!.map(c => c.image)).toEqual(["registry.example/postgres:15"]);
    const [main] = pod.containers;
    expect(main.command!.slice(-2)).toEqual(["check", "live"]);
    expect(main.volumeMounts).toContainEqual({
      name: "pgdata",
      mountPath: "/var/lib/postgresql/data",
      readOnly: true,
    });
    expect(pod.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
      {
        labelSelector: { matchLabels: { "statefulset.kubernetes.io/pod-name": "orders-1" } },
        topologyKey: "kubernetes.io/hostname",
      },
    ]);
    expect(j.spec!.backoffLimit).toBe(0);
  });

  it("keeps the user's affinity beside the primary's node; the conversion has no pod to follow", () => {
    const userAffinity = {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
    };
    const scheduling = { scheduling: { affinity: userAffinity } };
    expect(job({ step: "commit" }, scheduling).spec!.template.spec!.affinity).toMatchObject({
      ...userAffinity,
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [expect.anything()] },
    });
    expect(job({}, scheduling).spec!.template.spec!.affinity).toEqual(userAffinity);
    expect(job().spec!.template.spec!.affinity).toBeUndefined();
  });

  it("mounts the store's keys and CA for the stanza upgrade", () => {
    const pod = job({}, { backup: { objectStore: STORE } }).spec!.template.spec!;
    expect(pod.volumes!.map(v => v.name)).toEqual(
      expect.arrayContaining(["credentials", "pgbackrest-ca"]),
    );
    expect(pod.containers[0].volumeMounts!.map(m => m.name)).toContain("pgbackrest-ca");
  });
});
