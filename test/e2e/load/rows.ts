/**
 * Whether every acknowledged row is still there, decided inside PostgreSQL: the acknowledged ids
 * go in as ranges (two array parameters), and out come a count and at most SAMPLE missing ids.
 * Nothing is pulled through a process buffer, so the answer does not depend on how many rows a
 * fast machine wrote.
 */
import { Client } from "pg";
import { Credentials, pgConfig } from "../psql";

const SAMPLE = 20;

export interface RowCheck {
  acknowledged: number;
  missing: number;
  /** The lowest missing ids, at most SAMPLE of them. */
  sample: number[];
}

/** Counts the acknowledged ids (`ranges`, inclusive) that `table` no longer holds. */
export async function missingAcknowledgedRows(
  creds: Credentials,
  table: string,
  ranges: [number, number][],
  timeoutMs = 60_000,
): Promise<RowCheck> {
  const client = new Client({
    ...pgConfig(creds),
    connectionTimeoutMillis: 5000,
    query_timeout: timeoutMs,
  });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const params = [ranges.map(r => r[0]), ranges.map(r => r[1])];
    const acked = `select * from unnest($1::bigint[], $2::bigint[]) as acked(lo, hi)`;
    // Per range: its size less the rows found in it (an index range scan each).
    const counted = await client.query<{ acknowledged: string; missing: string }>(
      `select coalesce(sum(hi - lo + 1), 0) as acknowledged,
              coalesce(sum(hi - lo + 1 - (select count(*) from ${table} where id between lo and hi)), 0) as missing
         from (${acked}) a`,
      params,
    );
    const missing = Number(counted.rows[0].missing);
    const sample =
      missing === 0
        ? []
        : (
            await client.query<{ id: string }>(
              `select g as id from (${acked}) a, generate_series(lo, hi) g
                where not exists (select 1 from ${table} where id = g) order by g limit ${SAMPLE}`,
              params,
            )
          ).rows.map(r => Number(r.id));
    return { acknowledged: Number(counted.rows[0].acknowledged), missing, sample };
  } finally {
    await client.end().catch(() => undefined);
  }
}
