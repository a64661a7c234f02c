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
  it.each<[string, boolean, boolean]>([
    // The runtime's informers watch Databases (one copy each, listed before their children).
    ["a watcher (cluster-wide or namespaced): its own informers", true, false],
    // pepr build generates the watcher Deployment only when watch bindings exist.
    ["pepr build or an admission pod", false, true],
  ])("%s", (_, watcher, expected) => {
    expect(peprWatchesDatabases(watcher)).toBe(expected);
  });
});
