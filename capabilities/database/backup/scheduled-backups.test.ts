import type { Database } from "../api/database";
import { scheduledBackup, untilNextFireMs } from "./scheduled-backups";

const db = {
  metadata: { name: "orders", namespace: "shop", creationTimestamp: "2026-12-01T00:00:00Z" },
} as unknown as Database;
const at = (iso: string) => new Date(iso);

describe("scheduledBackup", () => {
  it("makes the Backup of the latest time within the hour, named after it", () => {
    const backup = scheduledBackup(db, "0 3 * * *", new Set(), at("2026-12-02T03:20:00Z"));
    expect(backup).toMatchObject({
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Backup",
      metadata: {
        name: "orders-202612020300",
        namespace: "shop",
        labels: { "pgkeeper.dev/database": "orders" },
        annotations: { "pgkeeper.dev/scheduled-for": "2026-12-02T03:00:00.000Z" },
      },
      spec: { database: "orders", type: "full" },
    });
    expect(backup?.metadata?.ownerReferences).toBeUndefined(); // never owned by the Database
  });

  it.each([
    ["already made", "0 3 * * *", ["orders-202612020300"], "2026-12-02T03:20:00Z"],
    ["missed by more than an hour (operator down)", "0 3 * * *", [], "2026-12-02T04:20:00Z"],
    ["scheduled before the Database existed", "0 23 * * *", [], "2026-11-30T23:10:00Z"],
    ["nothing due", "0 3 * * *", [], "2026-12-02T02:59:59Z"],
  ])("none when %s", (_title, schedule, existing, now) => {
    expect(scheduledBackup(db, schedule, new Set(existing), at(now))).toBeUndefined();
  });
});

describe("untilNextFireMs", () => {
  it.each([
    ["* * * * *", "2026-12-02T10:44:30Z", 30_000],
    ["0 3 * * *", "2026-12-02T02:40:00Z", 20 * 60_000],
    ["0 3 * * *", "2026-12-02T10:00:00Z", 60 * 60_000], // beyond the hour: look again in an hour
  ])("%s at %s: %i ms", (schedule, now, ms) => {
    expect(untilNextFireMs(schedule, at(now))).toBe(ms);
  });
});
