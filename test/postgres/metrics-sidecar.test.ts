/**
 * The metrics sidecar (ADR 0043) as each image runs it: the image's own exporter, with the flags
 * specs/metrics-sidecar.ts gives that major, logged in over the local socket as pgkeeper_monitor
 * by `peer` through the pg_ident.conf map, serving TLS with a certificate of the Database's kind.
 * The scrape holds pgkeeper's metric families and nothing of the exporter's built-in collectors
 * (so one dashboard fits every major), and its values are PostgreSQL's own. Also metrics.sh, the
 * sidecar's PID 1: an image without the exporter leaves it idle, never failing the pod.
 */
import { ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { IMAGE_VERSIONS } from "../../capabilities/database/lib/config";
import { tlsMaterial } from "../../capabilities/database/pki/database-tls";
import {
  exporterQueries,
  renderExporterQueries,
} from "../../capabilities/database/specs/exporter-queries";
import { EXPORTER_BIN } from "../../capabilities/database/specs/layout";
import {
  EXPORTER_DSN,
  exporterArgs,
  renderExporterWebConfig,
  renderPgIdent,
} from "../../capabilities/database/specs/metrics-sidecar";
import { renderPgHba } from "../../capabilities/database/specs/postgresql-conf";
import { ENSURE_ROLES_PSQL } from "../../capabilities/database/specs/roles";
import { METRICS_SH } from "../../capabilities/database/specs/scripts/metrics";
import { IMAGE_UID } from "../../hack/images/rootfs";
import { ImageServer } from "./harness/image-server";
import { getMetrics, parseScrape, Scrape } from "../metrics-scrape";
import { freePort } from "./harness/os";

jest.setTimeout(120_000);

const TLS = tlsMaterial("metrics", {}, ["localhost"], new Date()).tls;

/** Metric families pgkeeper's queries give, from the names the queries file declares. */
const pgkeeperFamilies = (major: string): string[] =>
  Object.entries(exporterQueries(major)).flatMap(([name, q]) =>
    q.columns.filter(([, usage]) => usage !== "LABEL").map(([column]) => `pg_${name}_${column}`),
  );
/** The exporter's own health, which every version reports, whatever its collectors. */
const EXPORTER_OWN =
  /^(pg_up|pg_exporter_.*|pg_scrape_collector_.*|postgres_exporter_.*|go_.*|process_.*|promhttp_.*)$/;

/** GET /metrics over TLS, the server verified against `ca` as `localhost`. */
const scrape = (port: number, ca = TLS.serverCa) =>
  getMetrics({ host: "127.0.0.1", port, ca, servername: "localhost" });

/** Scrapes until `done` holds (metrics.sh looks at the queries file every second here). */
async function scrapeUntil(port: number, done: (s: Scrape) => boolean): Promise<Scrape> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await scrape(port).catch(() => undefined); // the exporter restarting
    const s = r?.status === 200 ? parseScrape(r.body) : undefined;
    if (s && done(s)) return s;
    if (Date.now() > deadline) throw new Error("the scrape never showed what was awaited");
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

async function scrapeWhenUp(port: number, proc: ChildProcess): Promise<Scrape> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await scrape(port);
      if (r.status === 200) return parseScrape(r.body);
    } catch (e) {
      if (proc.exitCode !== null || Date.now() > deadline) throw e;
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}

/** Writes `text` as the image's postgres user's file at `inner` (a path in the image). */
const writeOwned = (server: ImageServer, inner: string, text: string): void => {
  writeFileSync(server.host(inner), text, { mode: 0o600 });
  chownSync(server.host(inner), IMAGE_UID, IMAGE_UID);
};
const ownedDir = (server: ImageServer, inner: string): void => {
  mkdirSync(server.host(inner), { mode: 0o700 });
  chownSync(server.host(inner), IMAGE_UID, IMAGE_UID);
};

describe.each(IMAGE_VERSIONS.map(major => [major]))("PostgreSQL %s's image", major => {
  let server: ImageServer;
  let exporter: ChildProcess;
  let port: number;
  let dir: { config: string; run: string; tls: string };
  let first: Scrape;

  beforeAll(async () => {
    server = await ImageServer.start(major, `metrics-${major}`, s => {
      const base = s.innerDir;
      dir = { config: `${base}/config`, run: `${base}/run`, tls: `${base}/tls` };
      for (const d of Object.values(dir)) ownedDir(s, d);
      writeOwned(s, `${dir.tls}/tls.crt`, TLS.serverCert);
      writeOwned(s, `${dir.tls}/tls.key`, TLS.serverKey);
      writeOwned(s, `${dir.config}/exporter-web.yaml`, renderExporterWebConfig(dir.tls));
      writeOwned(s, `${dir.config}/exporter-queries.yaml`, renderExporterQueries(major));
      writeOwned(s, `${dir.config}/pg_ident.conf`, renderPgIdent());
      writeOwned(s, `${dir.config}/metrics.sh`, METRICS_SH);
      // The instances' own rules (no host line lets anyone in without TLS), and the harness's
      // loopback trust after them.
      const hba = renderPgHba({
        allowPlaintext: false,
        enableSuperuserAccess: false,
        transition: false,
      }).replace(/^host .*reject$/m, "host all all 127.0.0.1/32 trust");
      writeOwned(s, `${dir.config}/pg_hba.conf`, hba);
      return {
        unix_socket_directories: dir.run,
        hba_file: `${dir.config}/pg_hba.conf`,
        ident_file: `${dir.config}/pg_ident.conf`,
      };
    });
  });
  afterAll(async () => {
    if (exporter?.exitCode === null) {
      exporter.kill("SIGTERM");
      await once(exporter, "exit");
    }
    await server?.stop();
  });

  it("is scraped as pgkeeper's families only, over TLS, logged in as pgkeeper_monitor", async () => {
    server.server.sql(ENSURE_ROLES_PSQL);
    server.server.sql("SELECT pg_create_physical_replication_slot('metrics_probe')");
    port = await freePort();
    const args = exporterArgs(major, dir.config).map(a =>
      a.startsWith("--web.listen-address=") ? `--web.listen-address=127.0.0.1:${port}` : a,
    );
    const dsn = EXPORTER_DSN.replace("host=/controller/run", `host=${dir.run}`).replace(
      "port=5432",
      `port=${server.server.port}`,
    );
    // As the pod runs it: metrics.sh, PID 1 of the sidecar, runs the exporter.
    const { command, args: chroot } = server.imageCommand("/usr/bin/env", [
      `DATA_SOURCE_NAME=${dsn}`,
      "PGKEEPER_QUERIES_CHECK_SECONDS=1",
      "/bin/sh",
      `${dir.config}/metrics.sh`,
      EXPORTER_BIN,
      ...args,
    ]);
    exporter = spawn(command, chroot, { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    exporter.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    first = await scrapeWhenUp(port, exporter).catch((e: Error) => {
      throw new Error(`${e.message}\nexporter log:\n${log}`);
    });

    expect({ up: first.value("pg_up"), log }).toMatchObject({ up: 1 });
    const unexpected = [...first.families].filter(
      f => !EXPORTER_OWN.test(f) && !pgkeeperFamilies(major).includes(f),
    );
    expect(unexpected).toEqual([]);
    // Every family but the standbys' (a lone primary has none) is there.
    const expected = pgkeeperFamilies(major).filter(f => !f.startsWith("pg_replication_"));
    expect(expected.filter(f => !first.families.has(f))).toEqual([]);
    expect(first.value("pg_exporter_last_scrape_error")).toBe(0);
    // Asked of PostgreSQL: who the exporter is.
    expect(
      server.server.sql(
        "SELECT usename || ' ' || (client_addr IS NULL) FROM pg_stat_activity WHERE application_name = 'pgkeeper-metrics'",
      ),
    ).toBe("pgkeeper_monitor true");
  });

  it("reports what PostgreSQL says", async () => {
    const before = Number(
      server.server.sql("SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres'"),
    );
    const now = parseScrape((await scrape(port)).body);
    expect(now.value("pg_settings_max_connections")).toBe(
      Number(server.server.sql("SHOW max_connections")),
    );
    expect(now.value("pg_database_xact_commit", { datname: "postgres" })).toBeGreaterThanOrEqual(
      before,
    );
    expect(now.value("pg_slots_active", { slot: "metrics_probe" })).toBe(0);
    expect(now.value("pg_wal_in_recovery")).toBe(0);
  });

  it("loads a changed queries file: metrics.sh restarts the exporter, nothing else", async () => {
    const custom = {
      app_probe: {
        query: "SELECT 42 AS answer",
        metrics: [{ answer: { usage: "GAUGE", description: "The answer." } }],
      },
    };
    const postmaster = server.server.sql("SELECT pg_postmaster_start_time()");
    writeOwned(server, `${dir.config}/exporter-queries.yaml`, renderExporterQueries(major, custom));
    const next = await scrapeUntil(port, s => s.value("app_probe_answer") !== undefined);
    expect(next.value("app_probe_answer")).toBe(42);
    expect(next.value("pg_up")).toBe(1);
    expect(exporter.exitCode).toBeNull();
    expect(server.server.sql("SELECT pg_postmaster_start_time()")).toBe(postmaster);
  });

  it("serves a renewed certificate with no restart", async () => {
    const renewed = tlsMaterial("metrics", {}, ["localhost"], new Date()).tls;
    writeOwned(server, `${dir.tls}/tls.key`, renewed.serverKey);
    writeOwned(server, `${dir.tls}/tls.crt`, renewed.serverCert);
    expect((await scrape(port, renewed.serverCa)).status).toBe(200);
    await expect(scrape(port, TLS.serverCa)).rejects.toThrow(/certificate/);
    expect(exporter.exitCode).toBeNull();
  });

  it("refuses plain HTTP", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`).then(
      r => r.status,
      () => "refused",
    );
    expect(res).not.toBe(200);
  });
});

describe("metrics.sh", () => {
  let server: ImageServer;
  beforeAll(async () => {
    server = await ImageServer.start(IMAGE_VERSIONS[0], "metrics-sh");
    writeOwned(server, `${server.innerDir}/metrics.sh`, METRICS_SH);
  });
  afterAll(() => server?.stop());

  it("idles, saying why, in an image without the exporter, and ends on SIGTERM with 0", async () => {
    const { command, args } = server.imageCommand("/bin/sh", [
      `${server.innerDir}/metrics.sh`,
      "/usr/bin/no-such-exporter",
      "--flag",
    ]);
    const proc = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    const said = new Promise<void>(resolve =>
      proc.stderr!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("no PostgreSQL metrics")) resolve();
      }),
    );
    await said;
    expect(log).toMatch(/no \/usr\/bin\/no-such-exporter in this image/);
    expect(proc.exitCode).toBeNull();
    proc.kill("SIGTERM");
    const [code] = (await once(proc, "exit")) as [number | null];
    expect(code).toBe(0);
  });

  it("starts the exporter again when it ends", async () => {
    // A stand-in that ends at once and leaves a mark each time it runs.
    const marks = `${server.innerDir}/runs`;
    writeOwned(server, marks, "");
    writeOwned(server, `${server.innerDir}/ends.sh`, `#!/bin/sh\necho run >> ${marks}\n`);
    chmodSync(server.host(`${server.innerDir}/ends.sh`), 0o755);
    const { command, args } = server.imageCommand("/usr/bin/env", [
      "PGKEEPER_QUERIES_CHECK_SECONDS=1",
      "/bin/sh",
      `${server.innerDir}/metrics.sh`,
      `${server.innerDir}/ends.sh`,
    ]);
    const proc = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    proc.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const runs = () => readFileSync(server.host(marks), "utf8").split("\n").filter(Boolean).length;
    const deadline = Date.now() + 60_000;
    while (runs() < 2 && Date.now() < deadline) await new Promise(r => setTimeout(r, 100));
    expect(runs()).toBeGreaterThanOrEqual(2);
    expect(log).toMatch(/ends.sh ended: starting it again in 5 s/);
    proc.kill("SIGTERM");
    const [code] = (await once(proc, "exit")) as [number | null];
    expect(code).toBe(0);
  });
});
