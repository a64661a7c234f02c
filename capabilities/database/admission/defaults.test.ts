import { mergeDeepRight } from "ramda";
import { DEFAULT_CONFIG, OperatorConfig } from "../lib/config";
import { defaultsPatch } from "./defaults";

const config: OperatorConfig = {
  ...DEFAULT_CONFIG,
  postgresImage: "registry.example/pg:{version}",
  postgresVersions: ["14", "15", "16", "17", "18"],
};
const minimal = { version: "16", storage: { size: "10Gi" } };

/** Everything the webhook fills into a minimal spec. */
const MINIMAL_PATCH = {
  image: "registry.example/pg:16",
  instances: 1,
  scheduling: { antiAffinity: "preferred" },
  postgresql: { synchronous: { mode: "off" } },
  failover: { enabled: true, delaySeconds: 0, promoteAfterFenceTimeout: false },
  readOnly: { maxLag: "64Mi" },
  tls: { allowPlaintext: false },
  enableSuperuserAccess: false,
  networkPolicy: { enabled: true, clients: [{ podSelector: {} }] },
  monitoring: { enabled: true },
  paused: false,
};

const apply = (spec: object, patch: object | undefined): object =>
  patch ? mergeDeepRight(spec, patch) : spec;

describe("defaultsPatch", () => {
  it("fills every absent defaultable field of a minimal spec", () => {
    expect(defaultsPatch(minimal, config)).toEqual(MINIMAL_PATCH);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown> | undefined]>([
    [
      "keeps present values, fills only what is missing",
      {
        ...minimal,
        image: "mine:1",
        instances: 3,
        scheduling: { antiAffinity: "none", nodeSelector: { a: "b" } },
        postgresql: { parameters: { work_mem: "4MB" }, synchronous: { mode: "quorum", number: 1 } },
        failover: { enabled: false },
        paused: true,
      },
      {
        failover: { delaySeconds: 0, promoteAfterFenceTimeout: false },
        readOnly: { maxLag: "64Mi" },
        tls: { allowPlaintext: false },
        enableSuperuserAccess: false,
        networkPolicy: MINIMAL_PATCH.networkPolicy,
        monitoring: MINIMAL_PATCH.monitoring,
      },
    ],
    [
      "fills nested fields next to present ones",
      { ...minimal, scheduling: { nodeSelector: { a: "b" } }, failover: { delaySeconds: 30 } },
      {
        ...MINIMAL_PATCH,
        scheduling: { antiAffinity: "preferred" },
        failover: { enabled: true, promoteAfterFenceTimeout: false },
      },
    ],
    [
      "no backup retention without an object store (admission refuses what needs one)",
      { ...minimal, backup: { schedule: "@daily" } },
      MINIMAL_PATCH,
    ],
    [
      "keeps false and 0 as present values",
      {
        ...minimal,
        paused: false,
        instances: 1,
        failover: { enabled: false, delaySeconds: 0, promoteAfterFenceTimeout: false },
        tls: { allowPlaintext: false },
        enableSuperuserAccess: false,
        networkPolicy: { enabled: false },
        monitoring: { enabled: false, customQueries: [] },
      },
      {
        image: MINIMAL_PATCH.image,
        scheduling: MINIMAL_PATCH.scheduling,
        postgresql: MINIMAL_PATCH.postgresql,
        readOnly: MINIMAL_PATCH.readOnly,
      },
    ],
    ["no patch for a spec missing its version", { storage: { size: "10Gi" } }, undefined],
    ["no patch for an unsupported version", { ...minimal, version: "13" }, undefined],
    ["no patch for instances as a string", { ...minimal, instances: "3" }, undefined],
    ["no patch when scheduling is a string", { ...minimal, scheduling: "spread" }, undefined],
    [
      "no patch when tolerations is not a list",
      { ...minimal, scheduling: { tolerations: {} } },
      undefined,
    ],
    [
      "no patch when a parameter is not a string",
      { ...minimal, postgresql: { parameters: { a: 1 } } },
      undefined,
    ],
  ])("%s", (_title, spec, expected) => {
    expect(defaultsPatch(spec, config)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ["on create: on, the namespace's pods as clients", minimal, MINIMAL_PATCH.networkPolicy],
    [
      "on create with clients named: on, those clients",
      { ...minimal, networkPolicy: { clients: [] } },
      { enabled: true },
    ],
    [
      "on create, turned off: stays off",
      { ...minimal, networkPolicy: { enabled: false } },
      undefined,
    ],
  ])("networkPolicy %s", (_title, spec, expected) => {
    expect(defaultsPatch(spec, config)?.networkPolicy).toEqual(expected);
  });

  it("networkPolicy on update: a Database from before the field stays without one", () => {
    const stored = { ...minimal, ...MINIMAL_PATCH, networkPolicy: undefined };
    expect(defaultsPatch(stored, config, stored)).toBeUndefined();
  });

  it.each([undefined, null, "spec", 5, [], {}])("never throws, no patch for %p", spec => {
    expect(defaultsPatch(spec, config)).toBeUndefined();
  });

  it.each([
    minimal,
    {
      ...minimal,
      backup: { objectStore: { endpoint: "s", bucket: "b", credentials: { secretName: "c" } } },
      scheduling: { tolerations: [{ key: "a" }] },
    },
    { ...minimal, postgresql: { parameters: { work_mem: "4MB" } }, resources: {} },
  ])("is idempotent: a defaulted spec needs no further patch (%#)", spec => {
    const once = apply(spec, defaultsPatch(spec, config));
    expect(defaultsPatch(once, config)).toBeUndefined();
    expect(apply(once, defaultsPatch(once, config))).toEqual(once);
  });

  it("adds backup retention with an object store, and leaves retentionDays unset", () => {
    const store = { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } };
    const patch = defaultsPatch({ ...minimal, backup: { objectStore: store } }, config) as {
      backup: Record<string, unknown>;
    };
    expect(patch.backup).toMatchObject({ retention: 7, archiveTimeoutSeconds: 60 });
    expect(patch.backup).not.toHaveProperty("retentionDays");
  });

  it("does not change present values when applied", () => {
    const spec = {
      ...minimal,
      instances: 5,
      image: "mine:2",
      scheduling: { tolerations: [{ key: "x" }] },
    };
    const result = apply(spec, defaultsPatch(spec, config)) as typeof spec;
    expect(result.instances).toBe(5);
    expect(result.image).toBe("mine:2");
    expect(result.scheduling.tolerations).toEqual([{ key: "x" }]);
  });

  it("uses the operator's image template for the version: pgkeeper's own by default", () => {
    expect(defaultsPatch({ ...minimal, version: "15" }, DEFAULT_CONFIG)?.image).toBe(
      "localhost/pgkeeper/postgres:15",
    );
    expect(defaultsPatch({ ...minimal, version: "14" }, config)?.image).toBe(
      "registry.example/pg:14",
    );
  });

  it("defaults no image for a major the operator has none for, and every other field still", () => {
    const patch = defaultsPatch({ ...minimal, version: "16" }, DEFAULT_CONFIG);
    expect(patch).not.toHaveProperty("image");
    expect(patch).toMatchObject({ instances: 1 });
  });

  it("keeps the stored image on update even for a major the operator no longer has one for", () => {
    const stored = { ...minimal, version: "16", image: "docker.io/library/postgres:16" };
    expect(defaultsPatch({ ...minimal, version: "16" }, DEFAULT_CONFIG, stored)?.image).toBe(
      "docker.io/library/postgres:16",
    );
  });

  describe("on update, the image pinned at creation wins over the operator default", () => {
    it.each<[string, unknown, string]>([
      ["stored image reused", { ...minimal, image: "old:16" }, "old:16"],
      [
        "stored spec of another version ignored",
        { ...minimal, version: "15", image: "old:15" },
        "registry.example/pg:16",
      ],
      ["stored spec without image", minimal, "registry.example/pg:16"],
      ["stored spec malformed", "garbage", "registry.example/pg:16"],
    ])("%s", (_title, oldSpec, image) => {
      expect(defaultsPatch(minimal, config, oldSpec)?.image).toBe(image);
    });
  });
});

describe("defaultsPatch: spec.version raised (a major upgrade)", () => {
  const stored = { ...minimal, version: "15", image: "registry.example/pg:15" };
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string | undefined]>([
    [
      "the operator's image of the old major follows to the new one",
      stored,
      { ...stored, version: "17" },
      "registry.example/pg:17",
    ],
    [
      "an image the user chose stays (validation asks for one of the new major)",
      { ...stored, image: "mine/pg:15" },
      { ...stored, image: "mine/pg:15", version: "17" },
      undefined,
    ],
    [
      "an image given with the rise is the user's",
      stored,
      { ...stored, version: "17", image: "mine/pg:17" },
      undefined,
    ],
    ["the version unchanged: nothing", stored, stored, undefined],
  ])("%s", (_title, oldSpec, spec, image) => {
    expect(defaultsPatch(spec, config, oldSpec)?.image).toBe(image);
  });
});

describe("defaultsPatch: imagePullSecrets", () => {
  const withSecrets = { ...config, imagePullSecrets: ["regcred", "other"] };
  const named = (...names: string[]) => names.map(name => ({ name }));
  it.each<[string, OperatorConfig, object, object | undefined, object | undefined]>([
    ["none configured: none defaulted", config, minimal, undefined, undefined],
    ["the operator's, on create", withSecrets, minimal, undefined, named("regcred", "other")],
    [
      "the spec's own are kept",
      withSecrets,
      { ...minimal, imagePullSecrets: named("mine") },
      undefined,
      undefined,
    ],
    [
      "an explicit empty list is kept",
      withSecrets,
      { ...minimal, imagePullSecrets: [] },
      undefined,
      undefined,
    ],
    [
      "the stored ones on update",
      withSecrets,
      minimal,
      { ...minimal, imagePullSecrets: named("old") },
      named("old"),
    ],
    [
      "the operator's on update when none stored",
      withSecrets,
      minimal,
      minimal,
      named("regcred", "other"),
    ],
  ])("%s", (_title, cfg, spec, oldSpec, expected) => {
    expect(defaultsPatch(spec, cfg, oldSpec)?.imagePullSecrets).toEqual(expected);
  });
});
