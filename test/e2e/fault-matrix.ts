/**
 * The HA suite's fault matrix: one row per fault injected under the write load, with what a user
 * feels (time to the first acknowledged write after the fault, the longest time without one) and
 * what must never happen (acknowledged rows lost, rounds with two writable instances), and how
 * long until every instance streamed again. Printed after each HA suite and written next to the
 * test logs, one file per suite (fault-matrix-<suite>.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface FaultRow {
  fault: string;
  /** From the fault to the first acknowledged write on the (new or same) primary. */
  firstWriteMs?: number;
  /** Longest time without an acknowledged write, from the fault until the row was taken. */
  longestGapMs: number;
  acknowledged: number;
  lost: number;
  /** Rounds of the watcher (every 200 ms) in which two instances accepted writes. */
  twoWritable: number;
  /** The longest window in which more than one instance was writable or did not answer. */
  unsureMs?: number;
  /** From the fault until every instance was ready and every replica streaming (2 s polls). */
  allStreamingMs: number;
}

const seconds = (ms: number | undefined): string =>
  ms === undefined ? "–" : `${(ms / 1000).toFixed(1)} s`;

export function faultTable(rows: FaultRow[]): string {
  const header = [
    "| fault | first write | longest gap | acknowledged rows lost | two writable | two writable or unknown (longest) | all streaming |",
    "| ----- | ----------- | ----------- | ---------------------- | ------------ | --------------------------------- | ------------- |",
  ];
  return [
    ...header,
    ...rows.map(
      r =>
        `| ${r.fault} | ${seconds(r.firstWriteMs)} | ${seconds(r.longestGapMs)} | ${r.lost} of ${r.acknowledged} | ${r.twoWritable} | ${seconds(r.unsureMs)} | ${seconds(r.allStreamingMs)} |`,
    ),
  ].join("\n");
}

export class FaultMatrix {
  private readonly rows: FaultRow[] = [];

  add(row: FaultRow): void {
    this.rows.push(row);
  }

  /** Prints the table and writes it to `dir/fault-matrix-<suite>.md`. */
  report(dir: string, writers: number, suite: string): void {
    if (this.rows.length === 0) return;
    const text = `${faultTable(this.rows)}\n\n${writers} writer(s); ${new Date().toISOString()}\n`;
    const file = join(dir, `fault-matrix-${suite}.md`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, text);
    console.log(`fault matrix (${file}):\n${text}`);
  }
}
