/**
 * The production path on the local node: `pepr deploy` alone runs the watcher (two replicas, one
 * leader) and admission Deployments in the cluster, hardened as deploy/operator/manifests.ts says
 * (ADR 0024); webhooks are reached through their Service.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { env } from "../integration/harness/env";
import { database, freshNamespace, installCrd } from "../integration/harness/fixtures";
import { create, tryCreate, get, kubectl, kubectlOk } from "../integration/harness/kubectl";
import { waitFor } from "../integration/harness/wait";

const IMAGE = "localhost/pgkeeper/controller:dev";
/** What `pepr deploy` installs, by name (its pepr-system namespace holds the rest). */
const INSTALLED = [
  ["validatingwebhookconfiguration", "pepr-pgkeeper"],
  ["mutatingwebhookconfiguration", "pepr-pgkeeper"],
  ["clusterrolebinding", "pepr-pgkeeper"],
  ["clusterrole", "pepr-pgkeeper"],
  ["namespace", "pepr-system"],
];
let ns: string;

/** All replicas of the newest generation are updated and available. */
function rolledOut(name: string): boolean {
  const d = get("deployment", "pepr-system", name);
  const spec = d?.spec as { replicas?: number } | undefined;
  type RolloutStatus = {
    observedGeneration?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    replicas?: number;
  };
  const status = d?.status as RolloutStatus | undefined;
  const want = spec?.replicas ?? 1;
  return (
    status?.observedGeneration === d?.metadata.generation &&
    status?.updatedReplicas === want &&
    status?.availableReplicas === want &&
    status?.replicas === want
  );
}

/** Runs a command with its output in a log file (never a buffer); on failure, its last lines. */
function run(cmd: string, args: string[], timeoutMs: number): void {
  mkdirSync(env.logDir, { recursive: true });
  const logFile = join(env.logDir, `in-cluster-${basename(args[0] ?? cmd)}.log`);
  const out = openSync(logFile, "w");
  try {
    const r = spawnSync(cmd, args, {
      cwd: env.repo,
      timeout: timeoutMs,
      stdio: ["ignore", out, out],
      env: { ...process.env, KUBECONFIG: env.kubeconfig },
    });
    if (r.status !== 0) {
      const tail = readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
      throw new Error(
        `${cmd} ${args.join(" ")} failed (${r.error?.message ?? r.status}):\n${tail}`,
      );
    }
  } finally {
    closeSync(out);
  }
}

interface Binding {
  kind: string;
  metadata: { namespace?: string };
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/**
 * The ClusterRoles and Roles bound to the operator's ServiceAccount, as they are live, saved for
 * hack/rbac-audit (run by hack/test-e2e.sh after the whole tier).
 */
function saveGrantedRbac(): void {
  const bindings = JSON.parse(
    kubectlOk(["get", "clusterrolebindings,rolebindings", "-A", "-o", "json"]),
  ) as { items: Binding[] };
  const toOperator = bindings.items.filter(b =>
    (b.subjects ?? []).some(
      s =>
        s.kind === "ServiceAccount" && s.name === "pepr-pgkeeper" && s.namespace === "pepr-system",
    ),
  );
  const roles = toOperator.map(
    b =>
      JSON.parse(
        kubectlOk(
          b.roleRef.kind === "ClusterRole"
            ? ["get", "clusterrole", b.roleRef.name, "-o", "json"]
            : ["get", "role", b.roleRef.name, "-n", b.metadata.namespace ?? "", "-o", "json"],
        ),
      ) as unknown,
  );
  const dir = join(env.work, "audit");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "granted.json"), JSON.stringify(roles, null, 2));
}

beforeAll(async () => {
  await installCrd();
  ns = freshNamespace("incluster");
  // pepr deploy waits for its Deployments without a timeout of its own: bound it here.
  run(join(env.repo, "node_modules", ".bin", "pepr"), ["deploy", "--yes", "-i", IMAGE], 300_000);
  saveGrantedRbac();
  // The operator's default images are the local cluster's (localhost/pgkeeper): nothing to set.
  for (const deployment of ["pepr-pgkeeper", "pepr-pgkeeper-watcher"]) {
    await waitFor(`${deployment} to roll out`, () => rolledOut(deployment), {
      timeoutMs: 300_000,
      intervalMs: 2000,
    }).catch(err => {
      const pods = kubectl(["get", "pods", "-n", "pepr-system", "-o", "wide"]).stdout;
      throw new Error(`${(err as Error).message}\n${pods}`);
    });
  }
}, 900_000);

afterAll(() => {
  kubectl(["delete", "namespace", ns, "--wait=false"]);
  for (const [kind, name] of INSTALLED) {
    kubectl(["delete", kind, name, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  }
}, 180_000);

/** The holder of the watchers' Lease, as the apiserver has it (a released Lease has none). */
const leaseHolder = (): string | undefined =>
  (get("lease", "pepr-system", "pgkeeper-leader")?.spec as { holderIdentity?: string } | undefined)
    ?.holderIdentity || undefined;
const watcherPods = (): string[] =>
  (
    JSON.parse(
      kubectlOk([
        ...["get", "pods", "-n", "pepr-system", "-l", "pepr.dev/controller=watcher"],
        ...["-o", "json"],
      ]),
    ) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] }
  ).items
    .filter(p => !p.metadata.deletionTimestamp)
    .map(p => p.metadata.name);

it("pepr deploy alone runs two watchers, one of them holding the leader Lease", async () => {
  expect(get("deployment", "pepr-system", "pepr-pgkeeper-watcher")?.spec).toMatchObject({
    replicas: 2,
    strategy: { type: "RollingUpdate" },
  });
  // An operator of an earlier suite may hold it until it expires (15 s).
  const holder = await waitFor(
    "one of the watchers holding the Lease",
    () => {
      const h = leaseHolder();
      return h && watcherPods().includes(h) ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 1000 },
  );
  expect(watcherPods()).toHaveLength(2);
  expect(holder).toMatch(/^pepr-pgkeeper-watcher-/);
}, 120_000);

it("the in-cluster watcher reconciles a Database", async () => {
  create(database(ns, "incluster"));
  const db = await waitFor(
    "the Database to be reconciled",
    () => {
      const d = get("database", ns, "incluster");
      const reconciled = (
        d?.status as { conditions?: { type: string; status: string }[] } | undefined
      )?.conditions?.find(c => c.type === "Reconciled");
      return reconciled?.status === "True" ? d : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 2000 },
  );
  expect(db.spec).toMatchObject({ image: "localhost/pgkeeper/postgres:15", instances: 1 }); // defaulted in-cluster
  const events = JSON.parse(kubectlOk(["get", "events", "-n", ns, "-o", "json"])) as {
    items: { reason: string; reportingInstance?: string }[];
  };
  const created = events.items.find(e => e.reason === "ChildrenCreated");
  expect(created?.reportingInstance).toMatch(/^pepr-pgkeeper-watcher-/); // the watcher pod did it
  expect(get("statefulset", ns, "incluster")).toBeDefined();
}, 240_000);

it("the other watcher takes the Lease when the leader's pod is deleted, and reconciles", async () => {
  const leader = leaseHolder()!;
  kubectlOk(["delete", "pod", "-n", "pepr-system", leader, "--wait=false"]);
  const next = await waitFor(
    "another watcher holding the Lease",
    () => {
      const holder = leaseHolder();
      return holder && holder !== leader ? holder : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  );
  expect(next).toMatch(/^pepr-pgkeeper-watcher-/);
  create(database(ns, "after-failover"));
  await waitFor(
    "the Database reconciled by the new leader",
    () =>
      (
        get("database", ns, "after-failover")?.status as
          | { conditions?: { type: string; status: string }[] }
          | undefined
      )?.conditions?.some(c => c.type === "Reconciled" && c.status === "True"),
    { timeoutMs: 180_000, intervalMs: 2000 },
  );
  const events = JSON.parse(kubectlOk(["get", "events", "-n", ns, "-o", "json"])) as {
    items: { reason: string; reportingInstance?: string; involvedObject: { name: string } }[];
  };
  expect(
    events.items.find(
      e => e.reason === "ChildrenCreated" && e.involvedObject.name === "after-failover",
    )?.reportingInstance,
  ).toBe(next);
}, 360_000);

it("the in-cluster admission webhook denies an invalid Database", () => {
  const r = tryCreate(database(ns, "tiny", { resources: { requests: { memory: "1Mi" } } }));
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("denied the request");
  expect(r.stderr).toContain("spec.resources.requests.memory");
  const webhook = JSON.parse(
    kubectlOk(["get", "validatingwebhookconfiguration", "pepr-pgkeeper", "-o", "json"]),
  ) as {
    webhooks: { clientConfig: { service?: { name: string; namespace: string }; url?: string } }[];
  };
  expect(webhook.webhooks[0].clientConfig.service).toMatchObject({
    name: "pepr-pgkeeper",
    namespace: "pepr-system",
  });
});

it("the operator's pods run with seccomp RuntimeDefault, a read-only root, no privilege escalation, no capabilities, non-root", () => {
  interface Container {
    name: string;
    securityContext?: {
      allowPrivilegeEscalation?: boolean;
      capabilities?: { drop?: string[] };
      runAsNonRoot?: boolean;
      readOnlyRootFilesystem?: boolean;
    };
    resources?: { limits?: { memory?: string } };
  }
  interface PodSpec {
    securityContext?: { seccompProfile?: { type?: string }; runAsNonRoot?: boolean };
    containers: Container[];
    initContainers?: Container[];
  }
  const pods = JSON.parse(kubectlOk(["get", "pods", "-n", "pepr-system", "-o", "json"])) as {
    items: { metadata: { name: string; deletionTimestamp?: string }; spec: PodSpec }[];
  };
  const running = pods.items.filter(p => !p.metadata.deletionTimestamp);
  expect(running.length).toBeGreaterThanOrEqual(3); // two admission pods and the watcher
  for (const pod of running) {
    expect([pod.metadata.name, pod.spec.securityContext?.seccompProfile?.type]).toEqual([
      pod.metadata.name,
      "RuntimeDefault",
    ]);
    for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
      expect([pod.metadata.name, c.name, c.securityContext]).toMatchObject([
        pod.metadata.name,
        c.name,
        {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
        },
      ]);
    }
  }
  const watcher = running.find(p => p.metadata.name.startsWith("pepr-pgkeeper-watcher-"));
  expect(watcher?.spec.containers[0].resources?.limits?.memory).toBe("768Mi");
  // The kernel says so too: nothing but the unpacked module's own file can be written.
  const write = kubectl([
    "exec",
    "-n",
    "pepr-system",
    watcher?.metadata.name ?? "",
    "--",
    "node",
    "-e",
    'for (const f of ["/app/x", "/tmp/x", "/x"]) try { require("fs").writeFileSync(f, ""); console.log(f, "written") } catch (e) { console.log(f, e.code) }',
  ]);
  expect(write.stdout.trim().split("\n")).toEqual(["/app/x EROFS", "/tmp/x EROFS", "/x EROFS"]);
});
