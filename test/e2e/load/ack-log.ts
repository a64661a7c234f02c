/**
 * The writer's acknowledgements, read incrementally from its `acks` file (one line per
 * acknowledged row: `id at server`). However long the load runs and however fast the machine,
 * memory stays small: times, ids and servers live in typed arrays, and the ids as ranges, which
 * is all the row check needs (`ranges()`, compared inside PostgreSQL).
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface Ack {
  id: number;
  /** Client time (ms) of the acknowledgement. */
  at: number;
  /** Address of the server that acknowledged it (a pod IP). */
  server: string;
}

/** Each writer numbers its rows from `writer × WRITER_ID_SPACE + 1` upwards. */
export const WRITER_ID_SPACE = 1_000_000_000;

const CHUNK = 1 << 20;

export class AckLog {
  private offset = 0;
  private partial = "";
  private size = 0;
  private at = new Float64Array(4096);
  private ids = new Float64Array(4096);
  private serverOf = new Uint16Array(4096);
  private readonly servers: string[] = [];
  /** Closed ranges of consecutive ids, and each writer's open one. */
  private readonly closed: [number, number][] = [];
  private readonly open = new Map<number, [number, number]>();

  constructor(private readonly file: string) {}

  /** Reads what the writer appended since the last call. */
  refresh(): void {
    let fd: number;
    try {
      fd = openSync(this.file, "r");
    } catch {
      return; // not written yet
    }
    try {
      const buffer = Buffer.alloc(CHUNK);
      for (;;) {
        const read = readSync(fd, buffer, 0, CHUNK, this.offset);
        if (read === 0) break;
        this.offset += read;
        const text = this.partial + buffer.toString("utf8", 0, read);
        const lines = text.split("\n");
        this.partial = lines.pop() ?? "";
        for (const line of lines) if (line) this.add(line);
      }
    } finally {
      closeSync(fd);
    }
  }

  get count(): number {
    this.refresh();
    return this.size;
  }

  /** The first acknowledgement at or after `t` (ms), optionally from a server other than `not`. */
  firstAfter(t: number, not?: string): Ack | undefined {
    this.refresh();
    for (let i = this.indexAtOrAfter(t); i < this.size; i++) {
      const server = this.servers[this.serverOf[i]];
      if (server !== not) return { id: this.ids[i], at: this.at[i], server };
    }
    return undefined;
  }

  /**
   * The longest time (ms) without any acknowledgement between `from` and `to`: from `from` to the
   * first acknowledgement in the window, between consecutive ones, and from the last one to `to`
   * (the whole window when there is none).
   */
  longestGap(from: number, to: number): number {
    this.refresh();
    let previous = from;
    let longest = 0;
    for (let i = this.indexAtOrAfter(from); i < this.size && this.at[i] <= to; i++) {
      longest = Math.max(longest, this.at[i] - previous);
      previous = this.at[i];
    }
    return Math.max(longest, to - previous);
  }

  /** Every acknowledged id, as inclusive ranges of consecutive ids. */
  ranges(): [number, number][] {
    this.refresh();
    return [...this.closed, ...this.open.values()].map(([lo, hi]) => [lo, hi]);
  }

  /** Lines are appended in time order by one process: a binary search finds a time. */
  private indexAtOrAfter(t: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private add(line: string): void {
    const [idText, atText, server] = line.split(" ");
    const id = Number(idText);
    this.grow();
    this.ids[this.size] = id;
    this.at[this.size] = Number(atText);
    this.serverOf[this.size] = this.serverIndex(server);
    this.size++;
    const writer = Math.floor((id - 1) / WRITER_ID_SPACE);
    const range = this.open.get(writer);
    if (range && range[1] + 1 === id) range[1] = id;
    else {
      if (range) this.closed.push(range);
      this.open.set(writer, [id, id]);
    }
  }

  private serverIndex(server: string): number {
    const known = this.servers.indexOf(server);
    if (known >= 0) return known;
    this.servers.push(server);
    return this.servers.length - 1;
  }

  private grow(): void {
    if (this.size < this.at.length) return;
    const bigger = <T extends Float64Array | Uint16Array>(a: T, make: (n: number) => T): T => {
      const b = make(a.length * 2);
      b.set(a);
      return b;
    };
    this.at = bigger(this.at, n => new Float64Array(n));
    this.ids = bigger(this.ids, n => new Float64Array(n));
    this.serverOf = bigger(this.serverOf, n => new Uint16Array(n));
  }
}

/**
 * The write acknowledged once the writes that failed at `errorTimes` after `t0` stopped failing:
 * the first acknowledgement strictly after the last failure (the first after `t0` when none
 * failed). Strictly: a writer logs an attempt's acknowledgement before its next attempt's error,
 * often in the same millisecond (the commit in flight acknowledged, then the next insert refused
 * by the dying server), and that acknowledgement is from before the outage, not after it. Taking
 * it was the "first write 0.0 s" of the SIGKILL row (issue 28).
 */
export function ackAfterOutage(
  log: Pick<AckLog, "firstAfter">,
  errorTimes: number[],
  t0: number,
): Ack | undefined {
  const failed = errorTimes.filter(t => t >= t0);
  return failed.length === 0
    ? log.firstAfter(t0)
    : log.firstAfter(failed.reduce((max, t) => Math.max(max, t), t0) + 1);
}
