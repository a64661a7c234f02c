/**
 * Admission through the real apiserver: Pepr's webhooks (defaults, denials naming the field) and
 * the CRD's own schema and CEL rules, which must hold even when the webhooks are gone.
 */
import { Operator, removeWebhooks } from "./harness/operator";
import { create, tryCreate, get, kubectl, kubectlOk } from "./harness/kubectl";
import { database, operatorSuite } from "./harness/fixtures";
import { waitFor } from "./harness/wait";

const operator = new Operator("admission");
let ns: string;

operatorSuite(operator, "adm", created => (ns = created));

/** Creates a 2Gi Database (if absent) and merge-patches its spec with `change`. */
function updateAfterCreate(name: string, change: object) {
  tryCreate(database(ns, name, { storage: { size: "2Gi" } }));
  const patch = JSON.stringify({ spec: change });
  return kubectl(["patch", "database", name, "-n", ns, "--type", "merge", "-p", patch]);
}

/** A well-formed bootstrap.recovery source (nothing is restored: these specs are refused). */
const RECOVERY = {
  source: {
    objectStore: {
      endpoint: "s3.example.internal",
      bucket: "pgbackups",
      credentials: { secretName: "s3" },
    },
    repositoryPath: "/prod/orders/1b2c",
  },
};

describe("with the webhooks", () => {
  it("fills defaults on create, and only defaults", () => {
    const r = tryCreate(
      database(ns, "defaults", { postgresql: { parameters: { work_mem: "8MB" } } }),
    );
    expect(r.stderr).toBe("");
    const db = get("database", ns, "defaults")!;
    expect(db.spec).toMatchObject({
      version: "15",
      instances: 1,
      image: expect.stringContaining("15"),
      storage: { size: "1Gi" },
      failover: { enabled: true, delaySeconds: 0 },
      postgresql: { parameters: { work_mem: "8MB" }, synchronous: { mode: "off" } },
      scheduling: { antiAffinity: "preferred" },
      paused: false,
    });
    expect(db.metadata.finalizers ?? []).toEqual([]); // deletion needs no operator (ADR 0005)
  });

  it("reads YAML as users mean it: mode: off, cpu: 0.5, max_connections: 200", () => {
    const yaml = [
      "apiVersion: pgkeeper.dev/v1alpha1",
      "kind: Database",
      `metadata: { name: yaml-habits, namespace: ${ns} }`,
      "spec:",
      '  version: "15"',
      "  storage: { size: 1Gi }",
      "  resources: { requests: { cpu: 0.5, memory: 268435456 } }",
      "  postgresql:",
      "    parameters: { max_connections: 200, jit: off }",
      "    synchronous: { mode: off }",
    ].join("\n");
    const r = kubectl(["apply", "-f", "-"], yaml);
    expect(r.stderr).toBe("");
    expect(get("database", ns, "yaml-habits")?.spec).toMatchObject({
      resources: { requests: { cpu: "0.5", memory: "268435456" } },
      postgresql: {
        parameters: { max_connections: "200", jit: "off" },
        synchronous: { mode: "off" },
      },
    });
  });

  it("keeps values the user set", () => {
    create(
      database(ns, "explicit", { instances: 3, failover: { enabled: false, delaySeconds: 30 } }),
    );
    expect(get("database", ns, "explicit")?.spec).toMatchObject({
      instances: 3,
      failover: { enabled: false, delaySeconds: 30 },
    });
  });

  // Each case is refused by the webhook (rules the CRD cannot express) with the field named.
  it.each([
    [
      "memory too small for PostgreSQL",
      { resources: { requests: { memory: "1Mi" } } },
      "spec.resources.requests.memory",
    ],
    [
      "cron with an out-of-range minute",
      { backup: { objectStore: RECOVERY.source.objectStore, schedule: "61 * * * *" } },
      "spec.backup.schedule",
    ],
    ["storage below the minimum", { storage: { size: "1Mi" } }, "spec.storage.size"],
    [
      "an invalid parameter name",
      { postgresql: { parameters: { "bad name": "1" } } },
      "spec.postgresql.parameters",
    ],
    [
      "a newline in a parameter value",
      { postgresql: { parameters: { work_mem: "8MB\nport = 1" } } },
      "spec.postgresql.parameters",
    ],
    ["an image with whitespace", { image: "postgres: 15" }, "spec.image"],
    [
      "a major the operator has no image for, naming none (and the majors it has)",
      { version: "16" },
      "spec.version: the operator has no PostgreSQL 16 image (it has images for 15, 17, 18)",
    ],
  ])("refuses %s", (_name, spec, field) => {
    const r = tryCreate(database(ns, "refused", spec));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("denied the request");
    expect(r.stderr).toContain(field);
    expect(get("database", ns, "refused")).toBeUndefined();
  });

  it("admits a major the operator has no image for when the Database names its own, and defaults pgkeeper's image for one it has", () => {
    create(database(ns, "own-image", { version: "16", image: "registry.example/postgres:16" }));
    expect(get("database", ns, "own-image")?.spec).toMatchObject({
      image: "registry.example/postgres:16",
    });
    create(database(ns, "default-image", { version: "15" }));
    expect(get("database", ns, "default-image")?.spec).toMatchObject({
      image: "localhost/pgkeeper/postgres:15",
    });
  });

  it.each([
    ["storage shrink", { storage: { size: "512Mi" } }, "spec.storage.size"],
    ["a version change", { version: "16" }, "version"],
  ])("refuses an update with %s", (_name, change, field) => {
    const r = updateAfterCreate("grown", change);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(field);
  });
});

describe("Secrets a Database names: only those its author may get (SubjectAccessReview)", () => {
  const TENANT = "tenant-a";
  const backedUp = (name: string, secretName: string) =>
    JSON.stringify(
      database(ns, name, {
        backup: {
          objectStore: {
            endpoint: "s3.example.internal",
            bucket: "pgbackups",
            credentials: { secretName },
          },
        },
      }),
    );
  const asTenant = (args: string[], input?: string) => kubectl([...args, `--as=${TENANT}`], input);

  beforeAll(() => {
    // The tenant manages Databases in the namespace and reads none of its Secrets.
    kubectlOk([
      "create",
      "role",
      "databases",
      "-n",
      ns,
      "--verb=get,list,create,update,patch",
      "--resource=databases.pgkeeper.dev",
    ]);
    kubectlOk([
      "create",
      "rolebinding",
      "tenant-databases",
      "-n",
      ns,
      "--role=databases",
      `--user=${TENANT}`,
    ]);
    for (const secret of ["s3-platform", "s3-tenant"])
      kubectlOk([
        "create",
        "secret",
        "generic",
        secret,
        "-n",
        ns,
        "--from-literal=accessKeyId=k",
        "--from-literal=secretAccessKey=s",
      ]);
  });

  it("refuses a Database naming a Secret its author may not get, as that author, naming the field", () => {
    const r = asTenant(["create", "-f", "-"], backedUp("borrowed", "s3-platform"));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `spec.backup.objectStore.credentials.secretName: ${TENANT} may not get Secret "s3-platform" in namespace "${ns}"`,
    );
    expect(get("database", ns, "borrowed")).toBeUndefined();
  });

  it("admits it once RBAC lets the author get that Secret, and only that one", async () => {
    kubectlOk([
      "create",
      "role",
      "s3-tenant",
      "-n",
      ns,
      "--verb=get",
      "--resource=secrets",
      "--resource-name=s3-tenant",
    ]);
    kubectlOk([
      "create",
      "rolebinding",
      "tenant-s3",
      "-n",
      ns,
      "--role=s3-tenant",
      `--user=${TENANT}`,
    ]);
    // The authorizer sees a new binding within moments.
    await waitFor(
      "the tenant's create admitted",
      () => asTenant(["create", "-f", "-"], backedUp("own", "s3-tenant")).code === 0 || undefined,
      { timeoutMs: 30_000 },
    );
    expect(get("database", ns, "own")?.spec).toMatchObject({
      backup: { objectStore: { credentials: { secretName: "s3-tenant" } } },
    });
    // Switching the existing Database to the platform's Secret is refused the same way.
    const patch = JSON.stringify({
      spec: { backup: { objectStore: { credentials: { secretName: "s3-platform" } } } },
    });
    const r = asTenant(["patch", "database", "own", "-n", ns, "--type", "merge", "-p", patch]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`may not get Secret "s3-platform"`);
  });

  it("lets anyone edit other fields of a Database whose Secrets someone else named", () => {
    create(JSON.parse(backedUp("platforms", "s3-platform")) as object);
    const r = asTenant([
      "patch",
      "database",
      "platforms",
      "-n",
      ns,
      "--type",
      "merge",
      "-p",
      '{"spec":{"instances":2}}',
    ]);
    expect(r.stderr).toBe("");
    expect(get("database", ns, "platforms")?.spec).toMatchObject({ instances: 2 });
  });
});

describe("with the webhooks gone (operator not installed)", () => {
  beforeAll(async () => {
    await operator.stop("SIGKILL");
    removeWebhooks();
  }, 60_000);

  it("still admits a valid Database (nothing is refused wholesale)", () => {
    const r = tryCreate(database(ns, "no-webhook-ok"));
    expect(r.stderr).toBe("");
    expect(get("database", ns, "no-webhook-ok")?.spec).not.toHaveProperty("instances"); // no defaulting without the webhook
  });

  it.each([
    [
      "an operator-owned parameter",
      { postgresql: { parameters: { wal_log_hints: "off" } } },
      "managed by pgkeeper",
    ],
    [
      "wal_level minimal",
      { postgresql: { parameters: { wal_level: "Minimal" } } },
      "wal_level cannot be minimal",
    ],
    ["too many instances", { instances: 10 }, "spec.instances"],
    [
      "a parameter value longer than any (the admission ReDoS's 4,095 digits and more)",
      { postgresql: { parameters: { work_mem: "1".repeat(4097) } } },
      "spec.postgresql.parameters.work_mem: Too long",
    ],
    ["an unsupported version", { version: "9.6" }, "spec.version"],
    ["a malformed type", { instances: "three" }, "spec.instances"],
    [
      "synchronous quorum without a number",
      { instances: 2, postgresql: { synchronous: { mode: "quorum" } } },
      "synchronous.number is required",
    ],
    [
      "synchronous number not below instances",
      { instances: 2, postgresql: { synchronous: { mode: "quorum", number: 2 } } },
      "must be less than spec.instances",
    ],
    [
      "a toleration with an operator Kubernetes does not know (its own schema)",
      { scheduling: { tolerations: [{ key: "a", operator: "Sometimes" }] } },
      'Unsupported value: "Sometimes"',
    ],
    [
      "a node affinity term of the wrong shape (its own schema)",
      {
        scheduling: {
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] } },
        },
      },
      "spec.scheduling.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
    ],
    [
      "an image of another major",
      { image: "docker.io/library/postgres:16.4-bookworm" },
      "spec.image's tag names another PostgreSQL major than spec.version",
    ],
    [
      "a backup schedule without an object store",
      { backup: { schedule: "@daily" } },
      "backup.schedule needs backup.objectStore",
    ],
    [
      "a backup age without an object store",
      { backup: { retentionDays: 30 } },
      "backup.retentionDays needs backup.objectStore",
    ],
    [
      "a backup volume (removed: its backups died with the Database)",
      { backup: { objectStore: RECOVERY.source.objectStore, volume: { size: "1Gi" } } },
      "is removed: base backups go to backup.objectStore",
    ],
    [
      "requests above limits",
      { resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } },
      "must not exceed",
    ],
    [
      "a restore by Database name (replaced by recovery: it would start empty)",
      { bootstrap: { restore: { source: "cel-other" } } },
      "spec.bootstrap.restore is replaced by spec.bootstrap.recovery",
    ],
    [
      "a recovery with two targets",
      { bootstrap: { recovery: { ...RECOVERY, target: { xid: 1234, immediate: true } } } },
      "takes exactly one of time, lsn, xid, name, immediate",
    ],
    [
      "a recovery path that climbs out of its prefix",
      {
        bootstrap: {
          recovery: { ...RECOVERY, source: { ...RECOVERY.source, repositoryPath: "/a/../b" } },
        },
      },
      "must not contain . or .. segments (climbing out of its prefix)",
    ],
    [
      "a recovery source with a store prefix (ignored otherwise)",
      {
        bootstrap: {
          recovery: {
            ...RECOVERY,
            source: {
              ...RECOVERY.source,
              objectStore: { ...RECOVERY.source.objectStore, path: "/x" },
            },
          },
        },
      },
      "objectStore.path does not apply",
    ],
    [
      "a recovery to a time that is no time",
      { bootstrap: { recovery: { ...RECOVERY, target: { time: "yesterday" } } } },
      "spec.bootstrap.recovery.target.time",
    ],
  ])("CEL/schema refuses %s", (_name, spec, message) => {
    const r = tryCreate(database(ns, "cel-self", spec));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it("CEL refuses a name too long for child objects", () => {
    const r = tryCreate(database(ns, "a".repeat(51)));
    expect(r.stderr).toContain("at most 50 characters");
  });

  it.each([
    ["storage shrink", { storage: { size: "512Mi" } }, "cannot shrink"],
    ["a version lowered", { version: "14" }, "version cannot go down"],
  ])("CEL refuses an update with %s", (_name, change, message) => {
    const r = updateAfterCreate("cel-update", change);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it("CEL admits a rise of spec.version (a major upgrade), and a fall only back to status.version", () => {
    const name = "cel-rise";
    const patch = (body: object, ...extra: string[]) =>
      kubectl([
        "patch",
        "database",
        name,
        "-n",
        ns,
        "--type",
        "merge",
        ...extra,
        "-p",
        JSON.stringify(body),
      ]);
    tryCreate(database(ns, name, { version: "15" }));
    expect(patch({ spec: { version: "17" } }).code).toBe(0);
    // The data still on 15 (the upgrade did not convert it): back to 15 is the one fall admitted.
    expect(patch({ status: { version: "15" } }, "--subresource=status").code).toBe(0);
    expect(patch({ spec: { version: "15" } }).code).toBe(0);
    expect(patch({ spec: { version: "17" } }).code).toBe(0);
    expect(patch({ status: { version: "17" } }, "--subresource=status").code).toBe(0);
    const down = patch({ spec: { version: "15" } });
    expect(down.code).not.toBe(0);
    expect(down.stderr).toContain("spec.version cannot go down");
  });
});

describe("the Backup CRD", () => {
  const backup = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: "pgkeeper.dev/v1alpha1",
    kind: "Backup",
    metadata: { name, namespace: ns },
    spec,
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no database", { type: "full" }, "spec.database: Required value"],
    ["an unknown type", { database: "orders", type: "weekly" }, "spec.type: Unsupported value"],
    [
      "an unknown target",
      { database: "orders", target: "replica" },
      "spec.target: Unsupported value",
    ],
  ])("refuses %s", (_title, spec, message) => {
    const r = tryCreate(backup("refused", spec));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it("refuses a change of spec: a Backup is one backup", () => {
    tryCreate(backup("once", { database: "orders" }));
    const patch = JSON.stringify({ spec: { type: "incr" } });
    const r = kubectl(["patch", "backup", "once", "-n", ns, "--type", "merge", "-p", patch]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("a Backup's spec is immutable");
  });
});
