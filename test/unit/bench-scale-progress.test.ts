/** bench:scale's progress: reconciled by the Reconciled condition, Ready by the pods kwok runs. */
import { countProgress, DatabaseView } from "../../bench/scale/progress";

const db = (status: DatabaseView["status"], generation = 1): DatabaseView => ({
  metadata: { generation },
  spec: { instances: 3 },
  status,
});
const converged = { type: "Reconciled", status: "True" };

describe("countProgress", () => {
  it.each<[string, DatabaseView, { reconciled: number; ready: number }]>([
    ["no status yet", db(undefined), { reconciled: 0, ready: 0 }],
    [
      "reconciled, pods starting",
      db({ observedGeneration: 1, conditions: [converged], readyInstances: 1 }),
      { reconciled: 1, ready: 0 },
    ],
    [
      "an older generation reconciled",
      db({ observedGeneration: 1, conditions: [converged] }, 2),
      { reconciled: 0, ready: 0 },
    ],
    [
      "Reconciled False",
      db({ observedGeneration: 1, conditions: [{ type: "Reconciled", status: "False" }] }),
      { reconciled: 0, ready: 0 },
    ],
    [
      "every pod ready, Degraded: kwok's replicas answer no SQL",
      db({ observedGeneration: 1, conditions: [converged], phase: "Degraded", readyInstances: 3 }),
      { reconciled: 1, ready: 1 },
    ],
    ["phase Ready", db({ phase: "Ready" }), { reconciled: 0, ready: 1 }],
  ])("%s", (_what, item, expected) => expect(countProgress([item])).toEqual(expected));
});
