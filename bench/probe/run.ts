/**
 * bench/probe: what the instance monitor's probes cost, per instance per second, with a new
 * connection (and SCRAM handshake) per probe as before, and on long-lived sessions (ADR 0016),
 * plaintext as the superuser, and over TLS as the operator now logs in (ADR 0017, 0019:
 * pgkeeper_monitor by its certificate, a TLS handshake and no SCRAM for each new connection).
 * N real PostgreSQL 15 servers on loopback (test/postgres/harness), probed every second, each
 * mode for D seconds after an idle phase of the same length:
 * - operator CPU: this process's own (it does nothing but probe);
 * - server CPU: every postmaster's own and reaped children's (exited backends) plus its live
 *   children, minus the idle phase's figure.
 * Usage: bash bench/probe.sh [--instances 100] [--seconds 30] [--smoke]
 * --smoke: 2 instances, 2 s per phase (results to a temporary directory, bench/lib/result.ts).
 */
import { readFileSync } from "node:fs";
import { probeInstance } from "../../capabilities/database/instance/instance-sql";
import { ProbeSessions } from "../../capabilities/database/instance/probe-sessions";
import { Cluster } from "../../test/postgres/harness/cluster";
import { childPids } from "../../test/postgres/harness/os";
import { PgServer } from "../../test/postgres/harness/server";
import { percentile } from "../lib/apiclient";
import { fmt } from "../lib/process";
import { isSmoke, runStart, saveResult } from "../lib/result";
import type { ProbeFigures, ProbeMode, ProbeParameters } from "../report/probe";
import { runMain } from "../lib/main";

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const TICKS_PER_SECOND = 100;
const PROBE_TIMEOUT_MS = 1500;
const ACCEPT_CHECK_MS = 5000;
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** utime+stime (and with `reaped`, cutime+cstime) of a process, in seconds. */
function cpuOf(pid: number, reaped: boolean): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    const own = Number(fields[11]) + Number(fields[12]);
    return (own + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) / TICKS_PER_SECOND;
  } catch {
    return 0; // exited between listing and reading: its time is in the parent's reaped figure
  }
}

function serverCpu(servers: PgServer[]): number {
  let total = 0;
  for (const s of servers) {
    if (!s.pid) continue;
    total += cpuOf(s.pid, true);
    for (const child of childPids(s.pid)) total += cpuOf(child, false);
  }
  return total;
}

const ownCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

type Probe = (server: PgServer) => Promise<unknown>;

interface Phase {
  operator: number;
  server: number;
  latencies: number[];
  failures: number;
}

/** Probes every server once a second for `seconds` (or only waits, with no probe). */
async function phase(servers: PgServer[], seconds: number, probe?: Probe): Promise<Phase> {
  const latencies: number[] = [];
  let failures = 0;
  const [operator0, server0] = [ownCpu(), serverCpu(servers)];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const tick = Date.now();
    if (probe)
      await Promise.all(
        servers.map(async s => {
          const started = Date.now();
          await probe(s).catch(() => failures++);
          latencies.push(Date.now() - started);
        }),
      );
    await sleep(Math.max(0, 1000 - (Date.now() - tick)));
  }
  return {
    operator: ownCpu() - operator0,
    server: serverCpu(servers) - server0,
    latencies,
    failures,
  };
}

/** CPU seconds over a phase as ms per instance per second. */
const perInstanceSecond = (cpu: number, p: ProbeParameters) =>
  (cpu / p.instances / p.seconds) * 1000;

/** The figures of one way of probing, per instance per second above the idle phase's. */
function probeRow(mode: ProbeMode, p: Phase, idle: Phase, params: ProbeParameters) {
  return {
    mode,
    operatorMs: perInstanceSecond(p.operator - idle.operator, params),
    serversMs: perInstanceSecond(p.server - idle.server, params),
    p50Ms: p.latencies.length ? percentile(p.latencies, 0.5) : null,
    p99Ms: p.latencies.length ? percentile(p.latencies, 0.99) : null,
    probes: p.latencies.length,
    failures: p.failures,
  };
}

async function main(): Promise<void> {
  const smoke = isSmoke();
  const start = runStart();
  const instances = arg("instances", smoke ? 2 : 100);
  const seconds = arg("seconds", smoke ? 2 : 30);
  const params: ProbeParameters = {
    instances,
    seconds,
    probeTimeoutMs: PROBE_TIMEOUT_MS,
    acceptCheckMs: ACCEPT_CHECK_MS,
  };
  const cluster = new Cluster();
  const servers: PgServer[] = [];
  try {
    const startedAt = Date.now();
    for (let i = 0; i < instances; i++)
      servers.push(
        await cluster.primary(`pg${i}`, { shared_buffers: "16MB", max_connections: "20" }),
      );
    const serversUpSeconds = (Date.now() - startedAt) / 1000;
    console.log(`${instances} PostgreSQL 15 servers up in ${fmt(serversUpSeconds)} s`);

    // TLS as the operator connects (ADR 0017 and 0019): the harness servers serve a certificate
    // for "localhost", verified against their CA; as pgkeeper_monitor by its certificate.
    const tls = (s: PgServer) => ({
      ...s.target,
      user: "pgkeeper_monitor",
      password: "",
      tls: {
        ca: cluster.tls.serverCa,
        cert: cluster.tls.monitorCert,
        key: cluster.tls.monitorKey,
        servername: "localhost",
      },
    });
    const idle = await phase(servers, seconds);
    const fresh = await phase(servers, seconds, s => probeInstance(s.target, PROBE_TIMEOUT_MS));
    const sessions = new ProbeSessions({ acceptCheckMs: ACCEPT_CHECK_MS });
    const reused = await phase(servers, seconds, s =>
      sessions.probeInstance(s.target, PROBE_TIMEOUT_MS),
    );
    sessions.closeAll();
    const freshTls = await phase(servers, seconds, s => probeInstance(tls(s), PROBE_TIMEOUT_MS));
    const tlsSessions = new ProbeSessions({ acceptCheckMs: ACCEPT_CHECK_MS });
    const reusedTls = await phase(servers, seconds, s =>
      tlsSessions.probeInstance(tls(s), PROBE_TIMEOUT_MS),
    );
    tlsSessions.closeAll();

    const rows = [
      probeRow("plaintext-connection", fresh, idle, params),
      probeRow("plaintext-sessions", reused, idle, params),
      probeRow("tls-connection", freshTls, idle, params),
      probeRow("tls-sessions", reusedTls, idle, params),
    ];
    const row = (label: string, r: (typeof rows)[number]) =>
      `${label.padEnd(38)} ${fmt(r.operatorMs, 3).padStart(7)} ${fmt(r.serversMs, 3).padStart(9)} ${fmt(r.operatorMs + r.serversMs, 3).padStart(8)}   ${fmt(r.p50Ms ?? undefined, 0).padStart(5)} / ${fmt(r.p99Ms ?? undefined, 0).padStart(5)} ms   ${r.failures}`;
    console.log(
      `\n=== probe cost: ${instances} instances, one probe per instance per second, ${seconds} s per mode ===`,
    );
    console.log(
      `CPU ms per instance per second (above idle)  operator    server    total   latency p50 / p99   failed`,
    );
    console.log(row("a new connection per probe (before)", rows[0]));
    console.log(row("long-lived sessions, accept check 5 s", rows[1]));
    console.log(row("TLS: a new connection per probe", rows[2]));
    console.log(row("TLS: long-lived sessions (now)", rows[3]));
    const total = (p: Phase) => p.operator + p.server - idle.operator - idle.server;
    console.log(`sessions / new connections, total CPU: x${fmt(total(reused) / total(fresh), 3)}`);
    console.log(
      `TLS: sessions / new connections, total CPU: x${fmt(total(reusedTls) / total(freshTls), 3)}`,
    );
    console.log(
      `now (TLS sessions) / before (plaintext, a connection per probe): x${fmt(total(reusedTls) / total(fresh), 3)}`,
    );
    console.log(
      `idle servers alone: ${fmt(perInstanceSecond(idle.server, params), 3)} ms per instance per second`,
    );
    const figures: ProbeFigures = {
      serversUpSeconds,
      idleServersMs: perInstanceSecond(idle.server, params),
      rows,
    };
    saveResult("probe", start, params, figures, smoke);
  } finally {
    await cluster.destroy();
  }
}

runMain(main);
