/** bench/backup's results (bench/backup/run.ts writes them) and their table. */
import { describeRun } from "./describe";
import type { BenchResult } from "./envelope";
import { fixed, mib, seconds } from "./format";
import { columns, table } from "./table";

export interface BackupParameters {
  /** BACKUP_BENCH_MB: table data loaded before the backups. */
  mb: number;
  /** BACKUP_BENCH_RPO_SECONDS: how long a commit is made every 100 ms for the RPO figure. */
  rpoSeconds: number;
  archiveTimeoutSeconds: number;
}

export interface BackupRun {
  compress: "gz" | "lz4";
  processMax: number;
  seconds: number;
  storedBytes: number | null;
}

export interface BackupFigures {
  /** pg_database_size over all databases: what every throughput is computed from. */
  dataBytes: number;
  baselineSeconds: number;
  pgbackrest: BackupRun[];
  restoreSeconds: number;
  rpo: {
    /** Null when transcribed: the docs gave the percentiles only. */
    commits: number | null;
    seenArchived: number | null;
    p50Ms: number;
    p95Ms: number;
    maxMs: number;
  };
}

export type BackupResult = BenchResult<BackupParameters, BackupFigures>;

const MIB = 2 ** 20;

const label = (run: BackupRun, first: boolean): string =>
  first && run.compress === "gz" && run.processMax === 1
    ? "pgBackRest full into the store, gz, 1 process"
    : `pgBackRest full, ${run.compress}, ${run.processMax === 1 ? "1 process" : `\`process-max\` ${run.processMax}`}`;

function backupTable(f: BackupFigures): string {
  const dataMiB = f.dataBytes / MIB;
  const row = (name: string, s: number, stored: string) => [
    name,
    seconds(s),
    `${fixed(dataMiB / s)} MiB/s`,
    fixed(f.baselineSeconds / s, 2),
    stored,
  ];
  return table(
    columns(
      "base backup of the same data",
      "time",
      "throughput",
      "ratio to pg_basebackup",
      "stored",
    ),
    [
      row("`pg_basebackup` to a local directory (baseline)", f.baselineSeconds, "—"),
      ...f.pgbackrest.map((r, i) =>
        row(label(r, i === 0), r.seconds, mib(r.storedBytes === null ? null : r.storedBytes / MIB)),
      ),
    ],
  );
}

export const backupProblems = (r: BackupResult): string[] => {
  const f = r.figures;
  const all = [f.dataBytes, f.baselineSeconds, f.restoreSeconds, f.rpo.p50Ms, f.rpo.maxMs];
  const errors = all.some(n => typeof n !== "number" || !Number.isFinite(n))
    ? ["a figure is missing"]
    : [];
  if (f.pgbackrest.length === 0) errors.push("no pgBackRest backup");
  if (f.rpo.seenArchived === 0) errors.push("no commit seen archived");
  return errors;
};

export function renderBackup(r: BackupResult): string {
  const f = r.figures;
  const p = r.parameters;
  const dataMiB = f.dataBytes / MIB;
  const s = (msValue: number) => fixed(msValue / 1000, 2);
  const seen =
    f.rpo.commits === null
      ? ""
      : ` (${f.rpo.commits} commits, ${f.rpo.seenArchived} seen archived)`;
  return [
    `\`BACKUP_BENCH_MB=${p.mb} npm run bench:backup\` (${fixed(dataMiB)} MiB in all databases): real PostgreSQL 15 and versitygw (TLS) on loopback, as in the postgres tier.`,
    backupTable(f),
    [
      `- **Restore** through the entrypoint (\`bootstrap.recovery\`, to the end of the archive): ${seconds(f.restoreSeconds)} (${fixed(dataMiB / f.restoreSeconds)} MiB/s).`,
      `- **RPO** with \`archive_timeout\` ${p.archiveTimeoutSeconds} s and no synchronous standby, commits 100 ms apart for ${p.rpoSeconds} s${seen}: from commit to being in the archive, p50 ${s(f.rpo.p50Ms)} s, p95 ${s(f.rpo.p95Ms)} s, max ${s(f.rpo.maxMs)} s.`,
    ].join("\n"),
    describeRun(r),
  ].join("\n\n");
}
