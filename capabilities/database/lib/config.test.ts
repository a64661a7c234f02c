import { DEFAULT_CONFIG, readConfig } from "./config";

describe("readConfig", () => {
  it("is the defaults with nothing set", () => {
    expect(readConfig({})).toEqual(DEFAULT_CONFIG);
  });

  it.each<[string, Record<string, string>, string]>([
    ["pepr deploy's namespace by default", {}, "pepr-system"],
    ["the pod's namespace", { POD_NAMESPACE: "ops" }, "ops"],
    [
      "the explicit setting over the pod's",
      { POD_NAMESPACE: "ops", PGKEEPER_OPERATOR_NAMESPACE: "db-ops" },
      "db-ops",
    ],
    ["blank as unset", { PGKEEPER_OPERATOR_NAMESPACE: "  " }, "pepr-system"],
  ])("operatorNamespace: %s", (_, env, expected) => {
    expect(readConfig(env).operatorNamespace).toBe(expected);
  });
});
