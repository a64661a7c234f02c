/** The handle of bench/fleet's background writers (writers.ts): start, read the counts, stop. */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appConnection } from "../../test/e2e/load";
import { startChild, stopChild } from "../../test/e2e/load/child";
import type { WriterCounts } from "./writer-counts";
import type { WritersConfig } from "./writers";

export class BackgroundLoad {
  private child?: ChildProcess;
  private readonly out = mkdtempSync(join(tmpdir(), "pgkeeper-fleet-load-"));

  constructor(
    private readonly namespace: string,
    private readonly databases: string[],
    private readonly rate: number,
  ) {}

  start(): void {
    const cfg: WritersConfig = {
      out: this.out,
      rate: this.rate,
      targets: this.databases.map(name => ({ name, app: appConnection(this.namespace, name) })),
    };
    this.child = startChild(join(__dirname, "writers.ts"), this.out, cfg);
  }

  /** What the writers counted so far (zero before their first second). */
  counts(): WriterCounts {
    try {
      return JSON.parse(readFileSync(join(this.out, "counts.json"), "utf8")) as WriterCounts;
    } catch {
      return { acknowledged: 0, failed: 0 };
    }
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }
}
