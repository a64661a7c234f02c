/**
 * spec.backup: the store, the bounds of its numbers, the schedule (the CRD's pattern, then cron
 * as the description has it, including "a schedule no date matches ... is refused"), the fields
 * that need a store (CEL), and the removed volume (CEL: refused by name).
 */
import { judgeCron } from "./cron";
import { Judge } from "./judge";
import { int, obj, str } from "./read";
import { judgeStore } from "./store";

const F = "spec.backup";

function schedule(j: Judge, v: unknown): void {
  const s = str(j, v, `${F}.schedule`, { max: 100 });
  if (s === undefined) return;
  const verdict = judgeCron(s);
  if (verdict === "pattern") j.bad(`${F}.schedule`, "does not match the CRD's pattern", "crd");
  else if (verdict === "invalid") j.bad(`${F}.schedule`, "not a cron schedule", "doc");
  else if (verdict === "never") j.bad(`${F}.schedule`, "no date matches it", "doc");
}

export function judgeBackup(j: Judge, backup: unknown): void {
  const o = obj(j, backup, F);
  if (!o) return;
  if (o.objectStore !== undefined) judgeStore(j, o.objectStore, `${F}.objectStore`, false);
  int(j, o.archiveTimeoutSeconds, `${F}.archiveTimeoutSeconds`, 1, 3600);
  schedule(j, o.schedule);
  int(j, o.retention, `${F}.retention`, 1, 365);
  int(j, o.retentionDays, `${F}.retentionDays`, 1, 3650);
  for (const needs of ["schedule", "retention", "retentionDays", "archiveTimeoutSeconds"]) {
    if (o[needs] !== undefined && o.objectStore === undefined)
      j.bad(`${F}.${needs}`, "needs backup.objectStore", "crd");
  }
  if (o.volume !== undefined) j.bad(`${F}.volume`, "removed", "crd");
}
