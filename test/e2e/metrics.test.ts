/**
 * PostgreSQL's metrics on a real node (issue 31, ADR 0043): every instance's `metrics` sidecar
 * serves port 9187 over TLS with the instance's certificate, verified against the Database's CA
 * by the pod's name, as a Prometheus configured by the PodMonitor would. What it serves is
 * compared with what PostgreSQL answers: the role of each instance, the standbys the primary
 * streams to, max_connections, and who the exporter logged in as. Every PostgreSQL metric the
 * dashboard's panels query is in the scrape. The user's queries come from ConfigMaps: a missing
 * one is named in the CustomQueries condition while the others are served, and once it exists
 * its query is served too, with no instance restarted.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dump, load } from "js-yaml";
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectlOk, mergePatch } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { dashboardMetrics } from "../dashboard";
import { getMetrics, parseScrape, Scrape } from "../metrics-scrape";
import { healthy } from "./healthy";
import { psql, superuserAt } from "./psql";

const operator = new Operator("e2e-metrics");
let ns: string;
operatorSuite(operator, "metrics", created => (ns = created));

const DB = "shop";
const REPO = path.join(__dirname, "..", "..");
const PODS = [`${DB}-0`, `${DB}-1`];

const queries = (name: string, sql: string) => `${name}:
  query: "${sql}"
  metrics:
    - value:
        usage: "GAUGE"
        description: "An e2e query."
`;
const configMap = (name: string, text: string) =>
  JSON.stringify({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: ns },
    data: { "queries.yaml": text },
  });

const decoded = (secret: string, key: string): string =>
  Buffer.from(String(get("secret", ns, secret)?.data?.[key] ?? ""), "base64").toString("utf8");
const podOf = (name: string) => get("pod", ns, name)!;

/**
 * GET https://<pod IP>:9187/metrics, the certificate verified as `<pod>.<db>-hl.<ns>.svc`, or
 * as `servername` (podmonitor.yaml's `<db>-hl.<ns>.svc`).
 */
async function scrape(pod: string, servername = `${pod}.${DB}-hl.${ns}.svc`): Promise<Scrape> {
  const host = String((podOf(pod).status as { podIP?: string }).podIP);
  const ca = decoded(`${DB}-app`, "ca.crt");
  const r = await getMetrics({ host, port: 9187, ca, servername });
  if (r.status !== 200) throw new Error(`${pod}: HTTP ${r.status}`);
  return parseScrape(r.body);
}

/** What PostgreSQL on `pod` answers to `sql`, as the superuser. */
const ask = (pod: string, sql: string): string => psql(superuserAt(ns, DB, podOf(pod)), sql);

interface Condition {
  type: string;
  status: string;
  message?: string;
}
const condition = (type: string): Condition | undefined =>
  (get("database", ns, DB)?.status as { conditions?: Condition[] } | undefined)?.conditions?.find(
    c => c.type === type,
  );

describe("PostgreSQL metrics", () => {
  beforeAll(async () => {
    kubectlOk(
      ["apply", "-f", "-"],
      configMap("app-queries", queries("app_seven", "SELECT 7 AS value")),
    );
    create(
      database(ns, DB, {
        instances: 2,
        monitoring: {
          customQueries: [
            { name: "app-queries", key: "queries.yaml" },
            { name: "late-queries", key: "queries.yaml" },
          ],
        },
      }),
    );
    await healthy(ns, DB, 2, operator.logFile);
  }, 420_000);

  it("serves each instance's over TLS, as PostgreSQL says, logged in as pgkeeper_monitor", async () => {
    for (const pod of PODS) {
      const s = await waitFor(`${pod}'s metrics`, () => scrape(pod).catch(() => undefined), {
        timeoutMs: 60_000,
        intervalMs: 1000,
      });
      expect(s.value("pg_up")).toBe(1);
      const inRecovery = ask(pod, "SELECT pg_is_in_recovery()::int");
      expect(s.value("pg_wal_in_recovery")).toBe(Number(inRecovery));
      expect(s.value("pg_settings_max_connections")).toBe(Number(ask(pod, "SHOW max_connections")));
      expect(
        ask(
          pod,
          "SELECT usename FROM pg_stat_activity WHERE application_name = 'pgkeeper-metrics'",
        ),
      ).toBe("pgkeeper_monitor");
      if (inRecovery === "0") {
        // The standbys the primary streams to, each with its lag in bytes and seconds.
        const standbys = ask(
          pod,
          "SELECT string_agg(application_name, ',') FROM pg_stat_replication",
        );
        for (const standby of standbys.split(",")) {
          expect(s.value("pg_replication_lag_bytes", { standby })).toBeGreaterThanOrEqual(0);
          expect(s.value("pg_replication_lag_seconds", { standby })).toBeGreaterThanOrEqual(0);
        }
      }
    }
  }, 180_000);

  it("has every PostgreSQL metric the dashboard's panels query", async () => {
    const primary = PODS.find(p => ask(p, "SELECT pg_is_in_recovery()") === "f")!;
    // A slot, so that the slots' panel has a series (pgkeeper's replicas stream without one).
    ask(primary, "SELECT pg_create_physical_replication_slot('e2e_dashboard')");
    try {
      const scraped = new Set<string>();
      for (const pod of PODS) for (const f of (await scrape(pod)).families) scraped.add(f);
      const used = dashboardMetrics(/pg_/);
      expect(used.length).toBeGreaterThan(15);
      expect(used.filter(([, name]) => !scraped.has(name))).toEqual([]);
    } finally {
      ask(primary, "SELECT pg_drop_replication_slot('e2e_dashboard')");
    }
  }, 120_000);

  it("is verified by the name podmonitor.yaml gives, the Database's headless Service", async () => {
    const s = await scrape(PODS[0], `${DB}-hl.${ns}.svc`);
    expect(s.value("pg_up")).toBe(1);
    const monitor = load(
      readFileSync(path.join(REPO, "deploy", "monitoring", "podmonitor.yaml"), "utf8"),
    ) as { spec: { podMetricsEndpoints: { tlsConfig: { serverName: string } }[] } };
    expect(monitor.spec.podMetricsEndpoints[0].tlsConfig.serverName).toBe(
      "orders-hl.<namespace>.svc",
    );
  }, 60_000);

  it("has alert rules that pass promtool's tests and name only metrics the scrapes have", async () => {
    const rules = load(
      readFileSync(path.join(REPO, "deploy", "monitoring", "prometheus-rules.yaml"), "utf8"),
    ) as { spec: { groups: { rules: { expr: string }[] }[] } };
    const dir = mkdtempSync(path.join(tmpdir(), "pgkeeper-rules-"));
    writeFileSync(path.join(dir, "rules.yaml"), dump(rules.spec));
    copyFileSync(
      path.join(__dirname, "monitoring", "rules-tests.yaml"),
      path.join(dir, "rules-tests.yaml"),
    );
    const promtool = spawnSync("bash", [path.join(REPO, "hack", "monitoring", "promtool.sh")], {
      encoding: "utf8",
    }).stdout.trim();
    const run = spawnSync(promtool, ["test", "rules", "rules-tests.yaml"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect({ status: run.status, out: run.stdout + run.stderr }).toMatchObject({ status: 0 });

    const scraped = new Set<string>();
    for (const pod of PODS) for (const f of (await scrape(pod)).families) scraped.add(f);
    const named = rules.spec.groups
      .flatMap(g => g.rules)
      .flatMap(r => [...r.expr.matchAll(/\bpg_[a-z_]+/g)].map(m => m[0]));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter(name => !scraped.has(name))).toEqual([]);
  }, 120_000);

  it("serves the user's queries, names a missing ConfigMap, and serves it once it exists, restarting nothing", async () => {
    await waitFor("CustomQueries False", () => condition("CustomQueries")?.status === "False", {
      timeoutMs: 60_000,
    });
    expect(condition("CustomQueries")?.message).toMatch(
      /late-queries\/queries.yaml: not found .*Loaded: 1 from app-queries\/queries.yaml/,
    );
    for (const pod of PODS) expect((await scrape(pod)).value("app_seven_value")).toBe(7);

    const started = PODS.map(p => ask(p, "SELECT pg_postmaster_start_time()"));
    const restarts = () =>
      PODS.map(p =>
        JSON.stringify(
          (podOf(p).status?.containerStatuses as { restartCount: number }[]).map(
            c => c.restartCount,
          ),
        ),
      );
    const restartsBefore = restarts();
    kubectlOk(
      ["apply", "-f", "-"],
      configMap("late-queries", queries("app_late", "SELECT 11 AS value")),
    );
    // A user's ConfigMap is not watched: a change to the Database starts the pass at once.
    mergePatch("database", ns, DB, { metadata: { annotations: { "e2e/touch": "1" } } });
    await waitFor("CustomQueries True", () => condition("CustomQueries")?.status === "True", {
      timeoutMs: 60_000,
    });
    // The kubelet refreshes the mounted ConfigMap, then metrics.sh restarts the exporter.
    for (const pod of PODS)
      await waitFor(
        `${pod} serving app_late`,
        // The exporter restarting refuses a scrape for a moment.
        async () => (await scrape(pod).catch(() => undefined))?.value("app_late_value") === 11,
        { timeoutMs: 180_000, intervalMs: 2000 },
      );
    expect(PODS.map(p => ask(p, "SELECT pg_postmaster_start_time()"))).toEqual(started);
    expect(restarts()).toEqual(restartsBefore);
  }, 420_000);
});
