/**
 * What `pepr deploy` alone installs, checked in the cluster: two watchers with one leading (its
 * pod the costliest to delete), the CRDs installed by the leader, Databases reconciled and
 * defaulted in the cluster, every PostgreSQL major pgkeeper has an image for (streaming, archiving,
 * a verified backup), the webhook reached through its Service, and the operator's pods hardened,
 * each one node process that handles SIGTERM.
 * Registered by in-cluster.test.ts, which deploys.
 */
import { readFileSync } from "node:fs";
import { env } from "../../integration/harness/env";
import { database, freshNamespace } from "../../integration/harness/fixtures";
import { create, tryCreate, get, kubectl, kubectlOk } from "../../integration/harness/kubectl";
import { waitFor } from "../../integration/harness/wait";
import { IMAGE_VERSIONS } from "../../../capabilities/database/lib/config";
import { backUp } from "../backups";
import { healthy } from "../healthy";
import { awaitLeader, watcherPods } from "../installed-operator";
import { podProcesses } from "../load";
import { createStoreSecrets, localObjectStore, pgbackrestIn } from "../object-store";
import { psql, superuserAt } from "../psql";
import { imageRepository, postgresImage } from "../registry";

interface AuditEvent {
  user: { username: string };
  objectRef?: { name?: string };
  responseStatus?: { code?: number };
}

/** Registers the tests; `image` is the controller image the install runs. */
export function installedByPeprDeploy(image: string): void {
  let ns = "";
  beforeAll(() => {
    ns = freshNamespace("incluster");
  });
  afterAll(() => {
    if (ns) kubectl(["delete", "namespace", ns, "--wait=false"]);
  });

  /** Backups, Jobs and pods of `namespace`, and the last lines of each watcher's log. */
  function inClusterDiagnosis(namespace: string): string {
    return [
      kubectl(["get", "backups,jobs,pods", "-n", namespace, "-o", "wide"]).stdout,
      kubectl(["get", "backups", "-n", namespace, "-o", "yaml"]).stdout.slice(0, 6000),
      ...watcherPods().map(
        pod => `--- ${pod} ---\n${kubectl(["logs", "-n", "pepr-system", pod, "--tail=40"]).stdout}`,
      ),
    ].join("\n");
  }

  it("pepr deploy alone runs two watchers, one of them holding the leader Lease", async () => {
    const watcher = get("deployment", "pepr-system", "pepr-pgkeeper-watcher")?.spec as {
      template: {
        spec: { containers: { image: string; env?: { name: string; value?: string }[] }[] };
      };
    };
    expect(watcher).toMatchObject({ replicas: 2, strategy: { type: "RollingUpdate" } });
    // The image from the registry; the repository set once, at deploy time.
    expect(watcher.template.spec.containers[0].image).toBe(image);
    expect(watcher.template.spec.containers[0].env).toContainEqual({
      name: "PGKEEPER_IMAGE_REPOSITORY",
      value: imageRepository(),
    });
    // An operator of an earlier suite may hold it until it expires (15 s).
    const holder = await awaitLeader();
    expect(watcherPods()).toHaveLength(2);
    expect(holder).toMatch(/^pepr-pgkeeper-watcher-/);
    // The leader's pod is the one a rollout takes last (leader/deletion-cost.ts).
    const cost = (pod: string) =>
      get("pod", "pepr-system", pod)?.metadata.annotations?.[
        "controller.kubernetes.io/pod-deletion-cost"
      ];
    await waitFor("the leader's pod marked costly", () => cost(holder) === "1000", {
      timeoutMs: 30_000,
    });
    expect(
      watcherPods()
        .filter(p => p !== holder)
        .map(cost),
    ).toEqual([undefined]);
  }, 120_000);

  it("the leader installs the CRDs itself (pepr deploy installs none)", async () => {
    // The apiserver's audit log shows the installed operator's own server-side applies: the
    // Backup CRD created (201, deleted before the install), the Database CRD updated (200).
    const appliedByOperator = (): string[] =>
      readFileSync(env.auditLog, "utf8")
        .split("\n")
        .filter(line => line.includes('"customresourcedefinitions"') && line.includes('"patch"'))
        .map(line => JSON.parse(line) as AuditEvent)
        .filter(
          e =>
            e.user.username === "system:serviceaccount:pepr-system:pepr-pgkeeper" &&
            e.objectRef?.name?.endsWith(".pgkeeper.dev"),
        )
        .map(e => `${e.objectRef!.name!} ${e.responseStatus?.code}`);
    await waitFor(
      "the operator's apply of both CRDs",
      () => {
        const applied = appliedByOperator();
        return (
          applied.includes("backups.pgkeeper.dev 201") &&
          applied.includes("databases.pgkeeper.dev 200")
        );
      },
      { timeoutMs: 60_000, intervalMs: 2000 },
    );
    expect(
      kubectl(["wait", "--for=condition=Established", "crd/backups.pgkeeper.dev", "--timeout=30s"])
        .code,
    ).toBe(0);
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
    expect(db.spec).toMatchObject({ image: postgresImage("15"), instances: 1 }); // defaulted in-cluster
    const events = JSON.parse(kubectlOk(["get", "events", "-n", ns, "-o", "json"])) as {
      items: {
        reason: string;
        message?: string;
        reportingInstance?: string;
        involvedObject: { name: string };
      }[];
    };
    // The watcher pod did it: the Database's Events (ChildrenCreated, or from whichever watcher
    // leads if the lead moved mid-pass) name it as their reporter.
    const reporters = events.items
      .filter(e => e.involvedObject.name === "incluster")
      // A failed pass says why (its message is the diagnosis should the check fail).
      .map(
        e =>
          `${e.reason} by ${e.reportingInstance ?? "?"}${e.reason === "ReconcileFailed" ? `: ${e.message}` : ""}`,
      );
    expect(reporters).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ChildrenCreated by pepr-pgkeeper-watcher-/)]),
    );
    expect(get("statefulset", ns, "incluster")).toBeDefined();
  }, 240_000);

  /**
   * Every major pgkeeper has an image for, on the operator as installed: two instances streaming,
   * WAL archived into the object store and a backup verified, each read from PostgreSQL itself or
   * from pgBackRest's repository, not from our status alone. The Databases run side by side.
   */
  it(`on PostgreSQL ${IMAGE_VERSIONS.join(", ")}: replicas streaming, WAL archived, a verified backup`, async () => {
    createStoreSecrets(ns);
    const name = (version: string) => `pg${version}`;
    for (const version of IMAGE_VERSIONS) {
      create(
        database(ns, name(version), {
          version,
          instances: 2,
          backup: { objectStore: localObjectStore(), archiveTimeoutSeconds: 5 },
        }),
      );
    }
    await Promise.all(IMAGE_VERSIONS.map(v => healthy(ns, name(v), 2)));
    const backups = await Promise.all(
      IMAGE_VERSIONS.map(v => backUp(ns, name(v), `${name(v)}-first`, { verify: true })),
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${inClusterDiagnosis(ns)}`);
    });
    for (const [i, version] of IMAGE_VERSIONS.entries()) {
      const db = name(version);
      expect([db, backups[i].phase, backups[i].verified]).toEqual([db, "Completed", true]);
      const status = get("database", ns, db)!.status as { currentPrimary: string };
      const primary = superuserAt(ns, db, get("pod", ns, status.currentPrimary)!);
      const facts = psql(
        primary,
        `select current_setting('server_version_num')::int / 10000,
                (select count(*) from pg_stat_replication where state = 'streaming'),
                (select archived_count > 0 from pg_stat_archiver)`,
      );
      expect([db, facts]).toEqual([db, `${version}|1|t`]);
      const info = JSON.parse(pgbackrestIn(ns, status.currentPrimary, "info", "--output=json")) as {
        backup: { label: string }[];
      }[];
      expect(info[0].backup.map(b => b.label)).toContain(backups[i].label);
    }
  }, 900_000);

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
      resources?: { requests?: { cpu?: string }; limits?: { memory?: string; cpu?: string } };
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
    // A CPU request, no CPU limit (ADR 0036): a CFS quota throttled the admission pods' bursts.
    for (const pod of running) {
      const resources = pod.spec.containers[0].resources;
      expect([pod.metadata.name, resources?.requests?.cpu, resources?.limits?.cpu]).toEqual([
        pod.metadata.name,
        "200m",
        undefined,
      ]);
    }
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

  it("each operator pod runs its module in one node process, the container's PID 1, which handles SIGTERM", () => {
    const pods = JSON.parse(kubectlOk(["get", "pods", "-n", "pepr-system", "-o", "json"])) as {
      items: { metadata: { name: string; uid: string; deletionTimestamp?: string } }[];
    };
    const running = pods.items.filter(p => !p.metadata.deletionTimestamp);
    expect(running.length).toBeGreaterThanOrEqual(4); // two admission pods, two watchers
    for (const pod of running) {
      // Read from the kernel: Pepr's controller.js forked a second process for the module, and a
      // PID 1 without a SIGTERM handler never receives the kubelet's SIGTERM.
      const processes = podProcesses(pod.metadata.uid, "node").map(p => ({
        containerPid: p.containerPid,
        handlesSigterm: handlesSignal(p.pid, 15),
        module: p.args.some(a => a.includes("module-")),
      }));
      expect([pod.metadata.name, processes]).toEqual([
        pod.metadata.name,
        [{ containerPid: 1, handlesSigterm: true, module: false }],
      ]);
    }
  });
}

/** Whether process `pid` has a handler for `signal` (SigCgt of /proc/<pid>/status). */
function handlesSignal(pid: number, signal: number): boolean {
  const caught = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return caught !== undefined && ((BigInt(`0x${caught}`) >> BigInt(signal - 1)) & 1n) === 1n;
}
