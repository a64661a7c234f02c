import { buildConfigMap, configHash } from "./configmap";
import { DB_NAME, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { ENTRYPOINT_SH } from "./scripts/entrypoint";
import { PROBE_SH } from "./scripts/probe";
import { BOOTSTRAP_SQL } from "./scripts/sql";
import { ownerReference } from "./meta";

describe("buildConfigMap", () => {
  const cm = buildConfigMap(input());

  it.each([
    ["apiVersion", "v1"],
    ["kind", "ConfigMap"],
    ["metadata.name", `${DB_NAME}-config`],
    ["metadata.namespace", NAMESPACE],
  ])("sets %s", (path, expected) => {
    expect(cm).toHaveProperty(path, expected);
  });

  it("carries the common labels and one owner reference", () => {
    expect(cm.metadata.labels["app.kubernetes.io/managed-by"]).toBe("pgkeeper");
    expect(cm.metadata.ownerReferences).toEqual([ownerReference(input().db)]);
  });

  it.each([
    ["postgresql.conf", /^wal_log_hints = 'on'$/m],
    ["pg_hba.conf", /^hostssl\s+all\s+all\s+all\s+scram-sha-256$/m],
    ["entrypoint.sh", ENTRYPOINT_SH],
    ["probe.sh", PROBE_SH],
    ["bootstrap.sql", BOOTSTRAP_SQL],
    ["managed.conf", /^wal_level = 'replica'$/m],
  ])("holds %s", (key, content) => {
    if (typeof content === "string") expect(cm.data?.[key]).toBe(content);
    else expect(cm.data?.[key]).toMatch(content);
  });

  it("holds nothing else", () => {
    expect(Object.keys(cm.data ?? {}).sort()).toEqual([
      "bootstrap.sql",
      "entrypoint.sh",
      "exporter-queries.yaml",
      "exporter-web.yaml",
      "managed.conf",
      "metrics.sh",
      "pg_hba.conf",
      "pg_ident.conf",
      "postgresql.conf",
      "probe.sh",
    ]);
  });
});

describe("configHash", () => {
  const hash = configHash(buildConfigMap(input()));

  it("is a sha256 hex digest", () => {
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is stable across builds", () => {
    expect(configHash(buildConfigMap(input()))).toBe(hash);
  });

  it("ignores key order", () => {
    expect(configHash({ data: { a: "1", b: "2" } })).toBe(configHash({ data: { b: "2", a: "1" } }));
  });

  it("ignores metadata", () => {
    const cm = buildConfigMap(input());
    expect(configHash({ ...cm, metadata: { name: "other" } })).toBe(hash);
  });

  it("changes with the fixed configuration", () => {
    const cm = buildConfigMap(input());
    const data = { ...cm.data, "postgresql.conf": "ssl = off\n" };
    expect(configHash({ ...cm, data })).not.toBe(hash);
  });

  it.each([
    // Applied live (ALTER SYSTEM + reload); restart-only ones roll out from status.pendingRestart.
    ["a user parameter", { postgresql: { parameters: { work_mem: "8MB" } } }],
    [
      "synchronous replication",
      { instances: 3, postgresql: { synchronous: { mode: "quorum" as const, number: 1 } } },
    ],
    ["the instance count", { instances: 3 }],
    ["the image", { image: "example/postgres:16.4" }],
    ["the storage size", { storage: { size: "5Gi" } }],
    // pg_hba.conf is reloaded where it changed (ha/tls-upkeep.ts): no restart.
    ["plaintext allowed", { tls: { allowPlaintext: true } }],
    ["superuser access enabled", { enableSuperuserAccess: true }],
  ])("does not change with %s", (_, spec) => {
    expect(configHash(buildConfigMap(input(spec)))).toBe(hash);
  });

  it("does not confuse values across keys", () => {
    expect(configHash({ data: { a: "1b", c: "" } })).not.toBe(
      configHash({ data: { a: "1", bc: "" } }),
    );
  });

  it("treats absent data as empty", () => {
    expect(configHash({})).toBe(configHash({ data: {} }));
  });
});
