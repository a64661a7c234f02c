/**
 * Storage growth on a real node: spec.storage.size grows, pgkeeper expands every instance's
 * claim, then recreates the StatefulSet without its pods (volumeClaimTemplates are immutable).
 * Nothing restarts, nothing is lost, an instance added afterwards gets a claim of the new size,
 * and a growth the claims' StorageClass cannot take is refused at admission, naming the class.
 *
 * The local volumes (local-path) are host directories with no size of their own, so no file
 * system grows here: what is proven is pgkeeper's part (the claims' requests, the StatefulSet's
 * re-creation with its pods kept), against a real apiserver, controller-manager and kubelet.
 */
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectl, kubectlOk, mergePatch } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { healthy } from "./healthy";
import { appCredentials, psql, superuserAt } from "./psql";

const operator = new Operator("e2e-storage");
let ns: string;
operatorSuite(operator, "storage", created => (ns = created));

/** local-path's provisioner, with expansion allowed (the cluster's default class has none). */
const EXPANDABLE = "pgkeeper-e2e-expandable";

beforeAll(() => {
  kubectlOk(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: EXPANDABLE },
      provisioner: "rancher.io/local-path",
      volumeBindingMode: "WaitForFirstConsumer",
      reclaimPolicy: "Delete",
      allowVolumeExpansion: true,
    }),
  );
});
afterAll(() => void kubectl(["delete", "storageclass", EXPANDABLE, "--ignore-not-found"]));

interface Claim {
  metadata: { name: string };
  spec: { resources: { requests: { storage: string } } };
}

const claims = (db: string): Record<string, string> =>
  Object.fromEntries(
    (
      JSON.parse(
        kubectlOk(["get", "pvc", "-n", ns, "-l", `pgkeeper.dev/database=${db}`, "-o", "json"]),
      ) as { items: Claim[] }
    ).items.map(c => [c.metadata.name, c.spec.resources.requests.storage]),
  );

const templateSize = (db: string): string | undefined =>
  (
    get("statefulset", ns, db)?.spec as
      | { volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[] }
      | undefined
  )?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;

/** What must not change while storage grows: the pods, their containers and their servers. */
function running(db: string, instances: number) {
  return Array.from({ length: instances }, (_, i) => {
    const pod = get("pod", ns, `${db}-${i}`)!;
    return {
      uid: pod.metadata.uid,
      restarts: JSON.stringify(
        (pod.status?.containerStatuses as { restartCount: number }[]).map(c => c.restartCount),
      ),
      started: psql(superuserAt(ns, db, pod), "select pg_postmaster_start_time()"),
    };
  });
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
const condition = (db: string, type: string): Condition | undefined =>
  (get("database", ns, db)?.status as { conditions?: Condition[] } | undefined)?.conditions?.find(
    c => c.type === type,
  );

/** Asks for `spec` on the Database; the result says whether admission took it. */
const patchSpec = (db: string, spec: object) => mergePatch("database", ns, db, { spec });

describe("storage growth", () => {
  const DB = "grow";

  beforeAll(async () => {
    create(
      database(ns, DB, {
        version: "15",
        instances: 2,
        storage: { size: "1Gi", storageClassName: EXPANDABLE },
      }),
    );
    await healthy(ns, DB, 2, operator.logFile);
    const app = appCredentials(ns, DB);
    await waitFor("SQL through -rw", () => psql(app, "select 1") === "1", { timeoutMs: 60_000 });
    psql(app, "create table kept (id int primary key)");
    psql(app, "insert into kept select generate_series(1, 5000)");
  }, 420_000);

  it("expands every claim and recreates the StatefulSet, with no pod restarted and no row lost", async () => {
    const before = running(DB, 2);
    const statefulSet = get("statefulset", ns, DB)?.metadata.uid;
    expect(claims(DB)).toEqual({ [`pgdata-${DB}-0`]: "1Gi", [`pgdata-${DB}-1`]: "1Gi" });

    expect(patchSpec(DB, { storage: { size: "2Gi" } }).code).toBe(0);
    await waitFor(
      "the claims and the StatefulSet at 2Gi",
      () =>
        Object.values(claims(DB)).every(size => size === "2Gi") &&
        templateSize(DB) === "2Gi" &&
        get("statefulset", ns, DB)?.metadata.uid !== statefulSet,
      { timeoutMs: 120_000, intervalMs: 1000 },
    );
    await healthy(ns, DB, 2, operator.logFile);
    expect(condition(DB, "Reconciled")?.status).toBe("True");
    expect(running(DB, 2)).toEqual(before);
    expect(psql(appCredentials(ns, DB), "select count(*) from kept")).toBe("5000");
  }, 300_000);

  it("gives an instance added afterwards a claim of the new size", async () => {
    expect(patchSpec(DB, { instances: 3 }).code).toBe(0);
    await healthy(ns, DB, 3, operator.logFile);
    expect(claims(DB)[`pgdata-${DB}-2`]).toBe("2Gi");
  }, 420_000);
});

describe("storage growth on a StorageClass that cannot expand", () => {
  const DB = "fixed";

  beforeAll(async () => {
    // The cluster's default class (local-path) does not allow expansion.
    create(database(ns, DB, { version: "15", instances: 1, storage: { size: "1Gi" } }));
    await healthy(ns, DB, 1, operator.logFile);
  }, 420_000);

  it("is refused at admission, naming the claim and its class, and nothing is touched", async () => {
    const before = running(DB, 1);
    const statefulSet = get("statefulset", ns, DB)?.metadata.uid;
    const refused = patchSpec(DB, { storage: { size: "2Gi" } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `spec.storage.size: cannot grow from 1Gi to 2Gi: claim pgdata-${DB}-0's StorageClass "local-path" does not allow volume expansion (allowVolumeExpansion is not true); the claims would stay 1Gi`,
    );
    expect(get("database", ns, DB)?.spec).toMatchObject({ storage: { size: "1Gi" } });
    expect(get("statefulset", ns, DB)?.metadata.uid).toBe(statefulSet);
    expect(templateSize(DB)).toBe("1Gi");
    expect(claims(DB)).toEqual({ [`pgdata-${DB}-0`]: "1Gi" });
    expect(running(DB, 1)).toEqual(before);
  });
});
