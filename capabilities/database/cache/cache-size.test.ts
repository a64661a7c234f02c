/**
 * The cache's size at 1,000 Databases (issue 29, goal 2). One 3-instance Database's objects as
 * the apiserver served them (test/unit/fixtures/one-database-as-served.json: captured from the
 * e2e cluster; Secret values replaced by random bytes of their length, managedFields' fieldsV1
 * emptied, which the cache drops anyway) are renamed for each Database and parsed from text, so
 * every object has its own strings, as from the wire, then stored as the informers store them.
 * Measured in heap bytes after a full collection: the same on a slow machine as on a fast one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { kindKeyOf } from "../api/kinds";
import { KubeObject } from "../cluster/cluster";
import { ObjectCache } from "./object-cache";

const DATABASES = 1000;
/** 50 KiB per Database measured here (93 before the instance scripts were held once), and room. */
const BUDGET_MIB = 56;

const served = readFileSync(
  join(__dirname, "../../../test/unit/fixtures/one-database-as-served.json"),
  "utf8",
);

/** Database `i`'s objects, each with strings of its own. */
const databaseObjects = (i: number): KubeObject[] =>
  JSON.parse(served.replaceAll("__db__", `db-${i}`).replaceAll("__ns__", "tenant")) as KubeObject[];

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

const heapUsed = (): number => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

describe("the cache at 1,000 Databases", () => {
  it(`holds their objects in at most ${BUDGET_MIB} MiB`, () => {
    const kinds = new Set(databaseObjects(0).map(o => o.kind));
    expect([...kinds].sort()).toEqual([
      "ConfigMap",
      "Database",
      "NetworkPolicy",
      "PersistentVolumeClaim",
      "Pod",
      "PodDisruptionBudget",
      "Secret",
      "Service",
      "ServiceAccount",
      "StatefulSet",
    ]);
    const cache = new ObjectCache(false);
    const before = heapUsed();
    for (let i = 0; i < DATABASES; i++)
      for (const obj of databaseObjects(i)) cache.upsert(kindKeyOf(obj), obj);
    const grownMiB = (heapUsed() - before) / 2 ** 20;
    // Everything is there (and the cache still reachable while the heap was measured).
    expect(cache.list("v1/Pod", "tenant", {})).toHaveLength(3 * DATABASES);
    console.log(
      `cache: ${grownMiB.toFixed(1)} MiB for ${DATABASES} Databases (${((grownMiB * 1024) / DATABASES).toFixed(1)} KiB each)`,
    );
    expect(grownMiB).toBeLessThanOrEqual(BUDGET_MIB);
  });
});
