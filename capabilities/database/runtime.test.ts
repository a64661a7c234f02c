import { DEFAULT_CONFIG } from "./lib/config";
import { isWatcherProcess, peprWatchesDatabases } from "./runtime";

describe("the watcher process", () => {
  it.each<[string, Record<string, string>, boolean]>([
    ["Pepr's watcher pod", { PEPR_WATCH_MODE: "true" }, true],
    ["pepr dev (admission and watch in one)", { PEPR_MODE: "dev" }, true],
    ["an admission pod", { PEPR_WATCH_MODE: "false" }, false],
    ["pepr build", { PEPR_MODE: "build" }, false],
  ])("%s: %s", (_, env, expected) => {
    expect(isWatcherProcess(env)).toBe(expected);
  });
});

describe("peprWatchesDatabases", () => {
  const serving = (...watchNamespaces: string[]) => ({ ...DEFAULT_CONFIG, watchNamespaces });
  it.each<[string, boolean, ReturnType<typeof serving>, boolean]>([
    ["a cluster-wide watcher: Pepr's bindings", true, serving(), true],
    // Its Roles would refuse Pepr's cluster-wide list; the runtime watches each namespace.
    ["a namespaced watcher: its own informers", true, serving("shop"), false],
    // pepr build generates the watcher Deployment only when watch bindings exist.
    ["pepr build or an admission pod of a namespaced install", false, serving("shop"), true],
  ])("%s", (_, watcher, config, expected) => {
    expect(peprWatchesDatabases(watcher, config)).toBe(expected);
  });
});
