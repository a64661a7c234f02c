/** The sentence under each generated table that says where its figures come from. */
import type { BenchResult, Machine } from "./envelope";

const GIB = 2 ** 30;

function machineText(m: Machine): string {
  const parts = [`${m.nproc} cores`];
  if (m.memoryBytes !== null) parts.push(`${(m.memoryBytes / GIB).toFixed(1)} GiB`);
  if (m.kernel !== null) parts.push(`Linux ${m.kernel}`);
  if (m.cpu !== null) parts.push(m.cpu.replace(/\s+/g, " ").trim());
  const load = m.loadAverage ? `, load average ${m.loadAverage[0].toFixed(2)} at the start` : "";
  return `${parts.join(", ")}${load}`;
}

/** "Run <date> at commit <c> on <machine>." or, for transcribed figures, their source. */
export function describeRun(r: BenchResult): string {
  if (r.source !== undefined) return `Source: ${r.source}.`;
  const day = r.date === null ? "on an unknown day" : r.date.slice(0, 10);
  const commit = r.commit === null ? "" : ` at commit \`${r.commit}\``;
  return `Run ${day}${commit} on ${machineText(r.machine)}.`;
}
