import { DEFAULT_CONFIG, readConfig, servesNamespace } from "./config";

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

  it.each<[string, string | undefined, string[]]>([
    ["the whole cluster by default", undefined, []],
    ["blank as unset", " , ", []],
    ["listed, trimmed, once each, in order", " shop, billing ,shop", ["shop", "billing"]],
    // A misspelt or invalid name must never widen the install to every namespace.
    ["an invalid name kept as written (it matches no namespace)", "Shop_1", ["Shop_1"]],
  ])("watchNamespaces: %s", (_, raw, expected) => {
    const env = raw === undefined ? {} : { PGKEEPER_WATCH_NAMESPACES: raw };
    expect(readConfig(env).watchNamespaces).toEqual(expected);
  });

  it.each<[string, string, string, boolean]>([
    ["every namespace with none listed", "", "anything", true],
    ["a listed namespace", "shop,billing", "billing", true],
    ["a namespace not listed", "shop,billing", "other", false],
    ["no namespace when the only entry is invalid", "Shop_1", "shop-1", false],
  ])("servesNamespace: %s", (_, raw, namespace, expected) => {
    expect(servesNamespace(namespace, readConfig({ PGKEEPER_WATCH_NAMESPACES: raw }))).toBe(
      expected,
    );
  });

  it.each<[string, Record<string, string>, string]>([
    [
      "pgkeeper's own, in the local repository, by default",
      {},
      "localhost/pgkeeper/postgres:{version}",
    ],
    [
      "pgkeeper's own under the repository set once",
      { PGKEEPER_IMAGE_REPOSITORY: "registry.example.com/platform/pgkeeper/" },
      "registry.example.com/platform/pgkeeper/postgres:{version}",
    ],
    [
      "an explicit template over the repository",
      { PGKEEPER_IMAGE_REPOSITORY: "r.example", PGKEEPER_POSTGRES_IMAGE: "mine/pg:{version}-x" },
      "mine/pg:{version}-x",
    ],
    [
      "blank as unset",
      { PGKEEPER_IMAGE_REPOSITORY: " ", PGKEEPER_POSTGRES_IMAGE: "" },
      "localhost/pgkeeper/postgres:{version}",
    ],
  ])("postgresImage: %s", (_, env, expected) => {
    expect(readConfig(env).postgresImage).toBe(expected);
  });

  it.each<[string, string | undefined, readonly string[]]>([
    ["the majors pgkeeper builds images for by default", undefined, ["15", "17", "18"]],
    ["a list, sorted and without repeats", " 17,14, 17 ,16", ["14", "16", "17"]],
    ["the default for anything but majors in it", "15,latest", ["15", "17", "18"]],
    ["the default for an empty list", " , ", ["15", "17", "18"]],
  ])("postgresVersions: %s", (_, raw, expected) => {
    expect(
      readConfig(raw === undefined ? {} : { PGKEEPER_POSTGRES_VERSIONS: raw }).postgresVersions,
    ).toEqual(expected);
  });

  it.each<[string, string | undefined, readonly string[]]>([
    ["none by default", undefined, []],
    [
      "a list, trimmed, without repeats",
      " regcred, other.creds ,regcred",
      ["regcred", "other.creds"],
    ],
    ["names a Secret cannot have are dropped", "ok,Bad_Name,,-x", ["ok"]],
  ])("imagePullSecrets: %s", (_, raw, expected) => {
    expect(
      readConfig(raw === undefined ? {} : { PGKEEPER_IMAGE_PULL_SECRETS: raw }).imagePullSecrets,
    ).toEqual(expected);
  });
});
