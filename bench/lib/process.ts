/** Memory of a process from /proc: current and peak resident set size (VmRSS, VmHWM). */
import { readFileSync } from "node:fs";

export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 };
  } catch {
    return undefined;
  }
}

export const fmt = (n: number | undefined, digits = 1): string =>
  n === undefined || !Number.isFinite(n) ? "–" : n.toFixed(digits);

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
