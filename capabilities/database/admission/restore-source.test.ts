import { restoreSourceDenials, serverSecretDenials, SourceReader } from "./restore-source";
import { CheckedDatabase } from "./rules/types";

const UID = "0f8e6c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b";

const recovering = (version = "16", ca?: string): CheckedDatabase =>
  ({
    metadata: { name: "restored" },
    spec: {
      version,
      storage: { size: "1Gi" },
      bootstrap: {
        recovery: {
          source: {
            objectStore: {
              endpoint: "s3.example",
              bucket: "pg",
              credentials: { secretName: "s3" },
              ...(ca ? { ca: { secretName: ca } } : {}),
            },
            repositoryPath: `/prod/shop/orders/${UID}`,
          },
        },
      },
    },
  }) as unknown as CheckedDatabase;

interface Scene {
  secrets?: Record<string, boolean | undefined>;
  source?: { uid?: string; version?: string } | null | undefined;
}

/** A reader over a fixed scene, recording what it was asked. */
function reader({ secrets = { s3: true }, source = null }: Scene): SourceReader & {
  asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    secretExists: async (namespace, name) => {
      asked.push(`secret ${namespace}/${name}`);
      return secrets[name];
    },
    database: async (namespace, name) => {
      asked.push(`database ${namespace}/${name}`);
      return source;
    },
  };
}

const messages = async (db: CheckedDatabase, scene: Scene): Promise<string[]> =>
  (await restoreSourceDenials(db, "shop", reader(scene))).map(d => `${d.field}: ${d.message}`);

describe("restoreSourceDenials", () => {
  it.each<[string, CheckedDatabase, Scene, string[]]>([
    ["source of the same major", recovering("16"), { source: { uid: UID, version: "16" } }, []],
    ["source gone (its repository outlives it)", recovering("16"), { source: null }, []],
    [
      "source recreated (another uid)",
      recovering("16"),
      { source: { uid: "x", version: "15" } },
      [],
    ],
    ["source unreadable", recovering("16"), { source: undefined }, []],
    ["Secret unreadable", recovering("16"), { secrets: { s3: undefined } }, []],
    [
      "source of another major",
      recovering("16"),
      { source: { uid: UID, version: "15" } },
      [
        "spec.bootstrap.recovery.source.repositoryPath: is the repository of Database shop/orders, a PostgreSQL 15 one, but spec.version is 16",
      ],
    ],
    [
      "credentials Secret missing",
      recovering("16"),
      { secrets: { s3: false } },
      [
        'spec.bootstrap.recovery.source.objectStore.credentials.secretName: Secret "s3" does not exist in namespace "shop"',
      ],
    ],
    [
      "CA Secret missing",
      recovering("16", "s3-ca"),
      { secrets: { s3: true, "s3-ca": false } },
      [
        'spec.bootstrap.recovery.source.objectStore.ca.secretName: Secret "s3-ca" does not exist in namespace "shop"',
      ],
    ],
  ])("%s", async (_title, db, scene, expected) => {
    const got = await messages(db, scene);
    expect(got).toHaveLength(expected.length);
    expected.forEach((part, i) => expect(got[i]).toContain(part));
  });

  it("reads nothing for a Database that recovers from nothing", async () => {
    const r = reader({});
    const db = { metadata: { name: "a" }, spec: { version: "16", storage: { size: "1Gi" } } };
    expect(await restoreSourceDenials(db as unknown as CheckedDatabase, "shop", r)).toEqual([]);
    expect(r.asked).toEqual([]);
  });

  it("reads the Secrets in the Database's namespace and the source where its path says", async () => {
    const r = reader({});
    await restoreSourceDenials(recovering("16", "s3-ca"), "shop", r);
    expect(r.asked.sort()).toEqual(["database shop/orders", "secret shop/s3", "secret shop/s3-ca"]);
  });
});

describe("serverSecretDenials", () => {
  const withServer = (name?: string) =>
    ({
      metadata: { name: "a" },
      spec: {
        version: "16",
        storage: { size: "1Gi" },
        ...(name ? { tls: { serverSecretName: name } } : {}),
      },
    }) as unknown as CheckedDatabase;

  it.each<[string, string | undefined, Scene, string[]]>([
    ["none named", undefined, {}, []],
    ["named and there", "mine", { secrets: { mine: true } }, []],
    ["named, unreadable", "mine", { secrets: { mine: undefined } }, []],
    [
      "named and missing",
      "mine",
      { secrets: { mine: false } },
      [
        'spec.tls.serverSecretName: Secret "mine" does not exist in namespace "shop"; create it first',
      ],
    ],
  ])("%s", async (_, name, scene, expected) => {
    const got = (await serverSecretDenials(withServer(name), "shop", reader(scene))).map(
      d => `${d.field}: ${d.message}`,
    );
    expect(got).toEqual(expected);
  });
});
