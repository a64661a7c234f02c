import type { CheckedDatabase } from "./rules/types";
import { admissionWarnings } from "./warnings";

const db = (backup?: object): CheckedDatabase =>
  ({
    metadata: { name: "orders" },
    spec: { version: "15", storage: { size: "1Gi" }, ...(backup ? { backup } : {}) },
  }) as CheckedDatabase;

describe("admissionWarnings", () => {
  it.each<[string, CheckedDatabase | undefined, CheckedDatabase, string[]]>([
    ["a create", undefined, db({ retentionDays: 1 }), []],
    ["unchanged", db({ retentionDays: 30 }), db({ retentionDays: 30 }), []],
    ["retentionDays raised", db({ retentionDays: 7 }), db({ retentionDays: 30 }), []],
    [
      "retentionDays removed (a revert)",
      db({ retention: 7, retentionDays: 30 }),
      db({ retention: 7 }),
      ["spec.backup.retentionDays removed"],
    ],
    [
      "retentionDays lowered",
      db({ retentionDays: 30 }),
      db({ retentionDays: 7 }),
      ["spec.backup.retentionDays lowered from 30 to 7"],
    ],
    [
      "retention lowered (the default is 7)",
      db({ retention: 10 }),
      db({}),
      ["spec.backup.retention lowered from 10 to 7"],
    ],
    ["backup removed altogether: no store to expire in", db({ retention: 10 }), db(), []],
  ])("%s", (_, old, now, starts) => {
    const warnings = admissionWarnings(now, old);
    expect(warnings).toHaveLength(starts.length);
    starts.forEach((s, i) => expect(warnings[i]).toContain(s));
  });
});
