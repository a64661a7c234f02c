/**
 * Parameters through ALTER SYSTEM (ADR 0002): postgresql.auto.conf holds exactly what the operator
 * wants, validated by the server itself, then reloaded. As the superuser: no lesser role may run
 * ALTER SYSTEM for every parameter the operator owns (ADR 0019).
 */
import pg from "pg";
import {
  isListQuoted,
  sameFileValue,
  SettingRow,
  settingMatches,
  splitList,
} from "../lib/guc-value";
import type { InstanceTarget } from "./types";
import { messageOf, reloadAndWait, withClient } from "./sql-session";

export interface ApplyResult {
  /** Whether postgresql.auto.conf was rewritten (and the configuration reloaded). */
  changed: boolean;
  /** Every parameter waiting for a restart after the reload, sorted. */
  pendingRestart: string[];
  /** Desired parameters whose value in effect differs (restart-only ones until the restart). */
  notApplied: string[];
  /** Why a desired value was not written, and what was kept instead (see holdWalLevel). */
  heldBack?: string;
}

/**
 * A server that holds logical replication slots refuses to start below wal_level logical
 * ("logical replication slot ... exists, but wal_level < logical"): lowering it would turn the
 * next restart into a crash loop. While this server runs at logical and holds such slots, the
 * file keeps logical; the caller asks again, and the value is lowered once they are dropped.
 */
async function holdWalLevel(
  c: pg.Client,
  wanted: Map<string, string>,
): Promise<string | undefined> {
  const desired = wanted.get("wal_level");
  if (desired === undefined || desired.toLowerCase() === "logical") return undefined;
  const { rows } = await c.query<{ running: string; slots: string | null }>(
    `SELECT current_setting('wal_level') AS running,
            (SELECT string_agg(slot_name, ', ' ORDER BY slot_name) FROM pg_replication_slots
              WHERE slot_type = 'logical') AS slots`,
  );
  const { running, slots } = rows[0];
  if (running !== "logical" || !slots) return undefined;
  wanted.set("wal_level", "logical");
  return `wal_level stays logical while logical replication slots exist (${slots}): PostgreSQL would not start below logical with them; drop them and it is lowered to ${desired}`;
}

/**
 * Parameter names are case-insensitive in PostgreSQL, but ALTER SYSTEM writes a quoted name as
 * given ("Work_Mem"), so names are folded to lower case before anything is compared or written.
 */
function normalize(desired: Record<string, string>): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const [name, value] of Object.entries(desired)) {
    const key = name.toLowerCase();
    if (wanted.has(key)) throw new Error(`parameter ${name} is given twice (names ignore case)`);
    wanted.set(key, value);
  }
  return wanted;
}

/** What postgresql.auto.conf holds now, read from disk by pg_file_settings. */
async function readAutoConf(c: pg.Client): Promise<Map<string, string>> {
  const { rows } = await c.query<{ name: string; setting: string | null }>(
    `SELECT name, setting FROM pg_file_settings
      WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'
      ORDER BY seqno`,
  );
  return new Map(rows.map(r => [r.name.toLowerCase(), r.setting ?? ""]));
}

function sameEntries(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, value] of b) {
    const other = a.get(name);
    if (other === undefined || !sameFileValue(name, other, value)) return false;
  }
  return true;
}

/**
 * ALTER SYSTEM SET, one literal per element for GUC_LIST_QUOTE parameters: given 'a,b' as one
 * literal, PostgreSQL would write the single element "a,b" (see guc-value.ts).
 */
function alterSystemSet(name: string, value: string): string {
  const literals = isListQuoted(name) ? splitList(name, value) : [value];
  const list = literals.length === 0 ? "''" : literals.map(v => pg.escapeLiteral(v)).join(", ");
  return `ALTER SYSTEM SET ${pg.escapeIdentifier(name)} = ${list}`;
}

/** RESET ALL, then SET each: postgresql.auto.conf holds exactly `entries`. */
async function writeExactly(c: pg.Client, entries: Map<string, string>): Promise<void> {
  await c.query("ALTER SYSTEM RESET ALL");
  for (const [name, value] of entries) await c.query(alterSystemSet(name, value));
}

/**
 * Validate-then-write. Nothing validates a value for every parameter context without writing
 * (set_config() refuses sighup and postmaster parameters before it looks at the value), so the
 * validation is ALTER SYSTEM SET itself, one desired parameter at a time: it checks name and
 * value as the server will and rewrites the file atomically. If one is refused, the previous
 * file is written back before we throw, and as nothing was reloaded in between, the running
 * configuration never saw the partial file. Once all are accepted, RESET ALL + SET each drops the
 * parameters no longer desired.
 */
async function rewriteAutoConf(
  c: pg.Client,
  previous: Map<string, string>,
  wanted: Map<string, string>,
): Promise<void> {
  for (const [name, value] of wanted) {
    try {
      await c.query(alterSystemSet(name, value));
    } catch (err) {
      const why = messageOf(err);
      try {
        await writeExactly(c, previous);
      } catch (restoreErr) {
        const how = messageOf(restoreErr);
        throw new Error(
          `parameter ${name}: ${why} (and restoring postgresql.auto.conf failed: ${how})`,
        );
      }
      throw new Error(`parameter ${name}: ${why}`);
    }
  }
  if ([...previous.keys()].some(name => !wanted.has(name))) await writeExactly(c, wanted);
}

async function restartAndDrift(
  c: pg.Client,
  wanted: Map<string, string>,
): Promise<Omit<ApplyResult, "changed">> {
  const pending = await c.query<{ name: string }>(
    "SELECT name FROM pg_settings WHERE pending_restart ORDER BY name",
  );
  const { rows } = await c.query<SettingRow & { source: string }>(
    "SELECT name, setting, unit, vartype, source FROM pg_settings WHERE name = ANY($1)",
    [[...wanted.keys()]],
  );
  const inEffect = new Map(rows.map(r => [r.name, r]));
  // A parameter this session set at its start (search_path: sql-session.ts) shows the session's
  // value, not the server's: whether the server took the file's is pg_file_settings' to say.
  const fileApplied = await c.query<{ name: string; applied: boolean }>(
    `SELECT lower(name) AS name, applied FROM pg_file_settings
      WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'`,
  );
  const appliedFromFile = new Set(fileApplied.rows.filter(r => r.applied).map(r => r.name));
  const notApplied = [...wanted]
    .filter(([name, value]) => {
      const row = inEffect.get(name);
      if (row?.source === "client") return !appliedFromFile.has(name);
      return row === undefined || !settingMatches(row, value);
    })
    .map(([name]) => name)
    .sort();
  return { pendingRestart: pending.rows.map(r => r.name), notApplied };
}

/**
 * Makes postgresql.auto.conf hold exactly `desired` (names folded to lower case), reloading
 * when it changed. Works on a primary and on a hot standby (ALTER SYSTEM writes a file, no WAL).
 * A refused name or value throws an error naming the parameter with PostgreSQL's message and
 * leaves the file as it was. postgresql.auto.conf belongs to this function: anything else
 * written there (pg_basebackup -R's primary_conninfo) is removed.
 */
export async function applyParameters(
  t: InstanceTarget,
  desired: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ApplyResult> {
  return withClient(t, "applyParameters", timeoutMs, async c => {
    const wanted = normalize(desired);
    const heldBack = await holdWalLevel(c, wanted);
    const previous = await readAutoConf(c);
    const changed = !sameEntries(previous, wanted);
    if (changed) {
      await rewriteAutoConf(c, previous, wanted);
      await reloadAndWait(c);
    }
    return { changed, ...(await restartAndDrift(c, wanted)), ...(heldBack ? { heldBack } : {}) };
  });
}
