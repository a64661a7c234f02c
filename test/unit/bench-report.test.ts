/**
 * The benchmarks' generated docs: each bench's results render as expected (from small fixtures
 * in bench-report/), and docs/benchmarks.md holds exactly what the committed results render, so
 * the doc cannot drift from the JSON.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BenchName, renderResultText } from "../../bench/report/benches";
import { generatedBody } from "../../bench/report/markers";
import { BENCH_SECTIONS } from "../../bench/report/sections";

const fixture = (name: string) =>
  readFileSync(join(__dirname, "bench-report", `${name}.json`), "utf8");
const render = (name: BenchName) => renderResultText(name, fixture(name), `${name}.json`);

describe("each bench's section, rendered from a fixture", () => {
  it.each<[BenchName, string[]]>([
    [
      "failover",
      [
        "`FAILOVERS=2 FAULTS=delete,kill npm run bench:failover`: the operator installed by `pepr deploy` at its defaults (3 failed probes, 1 s period, 1.5 s timeout); a 2-instance Database (asynchronous replication, the default: a commit is acknowledged once on the primary's disk)",
        "| pod deleted        | 2         | 2.40 s | 6.00 s | 6.00 s | 2.30 s        | 5.90 s        | p95 ≤ 5 s: **not met** | 0            | 0         |",
        "| postmaster SIGKILL | 1 of 2    | 2.50 s | 2.50 s | 2.50 s | 2.45 s        | 2.45 s        | p95 ≤ 5 s: met         | 0            | 2         |",
        "| pod deleted                | 0.30 s   | 0.90 s | 1.50 s   | 1.60 s   | 1.70 s   | 2.10 s     | 2.40 s      |",
        "| postmaster SIGKILL         | –        | –      | 1.40 s   | –        | 1.90 s   | –          | 2.50 s      |",
        "Acknowledged rows lost over the whole run: 2 of 12 345.",
        "Failed: kill #2: timed out.",
      ],
    ],
    [
      "backup",
      [
        "`BACKUP_BENCH_MB=4 npm run bench:backup` (20.0 MiB in all databases)",
        "| `pg_basebackup` to a local directory (baseline) | 0.5 s | 40.0 MiB/s | 1.00                   | —       |",
        "| pgBackRest full into the store, gz, 1 process   | 4.0 s | 5.0 MiB/s  | 0.13                   | 5.0 MiB |",
        "| pgBackRest full, lz4, `process-max` 2           | 2.0 s | 10.0 MiB/s | 0.25                   | –       |",
        "- **Restore** through the entrypoint (`bootstrap.recovery`, to the end of the archive): 5.0 s (4.0 MiB/s).",
        "for 3 s (30 commits, 30 seen archived): from commit to being in the archive, p50 2.50 s, p95 4.90 s, max 5.10 s.",
      ],
    ],
    [
      "probe",
      [
        "against 2 real PostgreSQL 15 servers on loopback (up in 4 s; idle servers 0.25 ms)",
        "| plaintext, a connection per probe    | 2.00 ms  | 8.00 ms  | 10.00 ms | 10 / 20 ms        |",
        "| TLS, long-lived sessions (what runs) | 1.00 ms  | 3.00 ms  | 4.00 ms  | 3 / 6 ms          |",
        "Sessions cost **0.25×** the CPU of a TLS handshake per probe, and what runs **0.40×** the plaintext connection per probe. 1 probes failed.",
      ],
    ],
    [
      "scale",
      [
        "`npm run bench:scale -- --n 2 --concurrency 4 --idle 90 --ready-timeout 60`: N Databases of 3 instances created at once, pods on 1 kwok nodes, the operator's watcher bundle run as a host process, resyncs every 60 s, the operator with `NODE_OPTIONS=--max-old-space-size=256`.",
        "| 2   | 4           | 3.3 s ¹        | 1.5                     | 0.8 s                   | 12 s      | 0.250                         | 0 (1.5 min) | 150 MiB  |",
        "¹ a footnote",
      ],
    ],
    [
      "admission",
      [
        "`npm run bench:admission -- --creates 20 --concurrency 1,4`: 20 dry-run Database creates",
        "| 4                  | 80.0      | 10.0 / 30.0 ms          | 2.0 / – ms               | –                          |",
        "The webhook server alone, 4 at a time, answered 500 validate reviews/s (p50 5 ms, p99 9 ms).",
        "Ordinary reviews (10 per measure), quiet and with hostile requests alongside",
        "| straight to the webhook, 1 | 2.5 ms | 120.0 ms          |",
        "No ordinary request failed.",
      ],
    ],
    [
      "fuzz",
      [
        "`bash bench/fuzz.sh --seed 7 --cases 20 --concurrency 6 --mode direct`",
        "**0 robustness failures** in 20 requests.",
        "| seed 7, 20, direct |      40 |     7.5 / 30 |        3 |     17 |    **0** | 2 (1 schema/CEL only) |              0 |       1 |",
        "- direct: admitted but invalid: image (doc) (2; cases 4, 11)",
        "Source: transcribed from the docs of 2026-12-04, run on a 2-core VM; rerun npm run bench:fuzz to replace.",
      ],
    ],
    [
      "compare",
      [
        "`npm run bench:compare -- --n 100 --workers 4 --idle 30`: N Databases of 3 instances",
        "| 100 | controller-runtime      | 10.0 s       | 2.0 s        | 100 MiB  | 10.0 (8.00 create, 2.00 get) | 400 (+0 Lease)           |",
        "| 100 | pgkeeper                | 20.0 s       | 3.0 s        | 150 MiB  | 15.0 (15.00 patch)           | 0 (+9 Lease)             |",
        "| 100 | **pgkeeper ÷ baseline** | 2.00×        | 1.50×        | 1.50×    | 1.50×                        |                          |",
      ],
    ],
    [
      "fleet",
      [
        "`DATABASES=4 REST_SECONDS=10 RATE=5 FAULTS=delete:1 npm run bench:fleet`: 4 Databases of 3 instances",
        "Created 2 at a time, each batch awaited Ready with every replica streaming: all of them **120 s** after the first create; **1 failovers** started meanwhile and 0 over the windows at rest, with nothing failed on purpose. While the fleet was created, 19 runs of an instance's probe silence were not counted toward a failover (ADR 0038: the node slow, or the operator).",
        "| leading watcher                    | 6.0% of a core  | 5.00 ms                 | 120.5 MiB RSS (peak 130.3 MiB) |",
        "| what the probes cost the instances | 6.0% of a core  | 5.00 ms                 |                                |",
        "while the 3 others each take 5 inserts/s through their own `<db>-rw` (900 acknowledged, 2 failed: `Query read timeout` ×1, `Connection terminated unexpectedly` ×1, over 60 s)",
        "| pod deleted | 1         | 2.40 s | 2.40 s | 2.40 s |",
        "Acknowledged rows lost (the Database that failed over): 0 of 1234.",
      ],
    ],
  ])("%s", (name, lines) => {
    const text = render(name);
    for (const line of lines) expect(text).toContain(line);
  });

  it("says when, at which commit and on which machine a run ran", () => {
    expect(render("failover")).toContain(
      "Run 2026-12-05 at commit `abc1234` on 2 cores, 24.0 GiB, Linux 6.1.0-test, Test CPU @ 2.00GHz, load average 0.50 at the start.",
    );
  });

  it.each<[string, string, RegExp]>([
    ["malformed JSON", "{", /malformed JSON/],
    ["another bench's results", fixture("probe"), /bench is "probe", not "failover"/],
    [
      "no figures",
      JSON.stringify({ ...JSON.parse(fixture("failover")), figures: {} }),
      /no figures/,
    ],
    [
      "figures the renderer cannot read",
      JSON.stringify({ ...JSON.parse(fixture("failover")), figures: { modes: [] } }),
      /cannot be rendered/,
    ],
    [
      "figures of a run that measured nothing",
      JSON.stringify({
        ...JSON.parse(fixture("failover")),
        figures: {
          ...JSON.parse(fixture("failover")).figures,
          faults: [{ ...JSON.parse(fixture("failover")).figures.faults[1], timelines: [] }],
        },
      }),
      /kill: no failover completed/,
    ],
  ])("refuses %s", (_what, text, error) => {
    expect(() => renderResultText("failover", text, "failover.json")).toThrow(error);
  });

  it("refuses probe figures in which most probes failed: they measure timeouts", () => {
    const r = JSON.parse(fixture("probe"));
    r.figures.rows[0] = { ...r.figures.rows[0], probes: 1100, failures: 1100 };
    expect(() => renderResultText("probe", JSON.stringify(r), "probe.json")).toThrow(
      /plaintext-connection: 1100 of 1100 probes failed/,
    );
  });

  it("says the scale figures were measured on the installed operator when they were", () => {
    const r = JSON.parse(fixture("scale"));
    r.parameters.placement = "cluster";
    const text = renderResultText("scale", JSON.stringify(r), "scale.json");
    expect(text).toContain("`OPERATOR=cluster npm run bench:scale -- --n 2");
    expect(text).toContain("the operator installed by `pepr deploy` (its leading watcher pod");
  });
});

describe("docs/benchmarks.md", () => {
  const doc = readFileSync(join(__dirname, "..", "..", "docs", "benchmarks.md"), "utf8");

  it.each(BENCH_SECTIONS.map(s => [s.name, s] as const))(
    "holds exactly what %s's committed results render",
    (_name, section) => {
      expect(section.file).toBe("docs/benchmarks.md");
      expect(generatedBody(doc, section.name)).toBe(section.render().trim());
    },
  );
});
