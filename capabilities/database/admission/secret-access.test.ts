import { CheckedDatabase } from "./rules/types";
import { AccessReviewer, RequestingUser, secretAccessDenials } from "./secret-access";
import { referencedSecrets, referencesToReview } from "./secret-references";

const store = (credentials: string, ca?: string) => ({
  endpoint: "s3.example.internal",
  bucket: "pgbackups",
  credentials: { secretName: credentials },
  ...(ca ? { ca: { secretName: ca } } : {}),
});

const db = (spec: Record<string, unknown>): CheckedDatabase =>
  ({
    metadata: { name: "orders" },
    spec: { version: "15", storage: { size: "1Gi" }, ...spec },
  }) as unknown as CheckedDatabase;

const everything = db({
  backup: { objectStore: store("s3-keys", "s3-ca") },
  bootstrap: {
    recovery: { source: { objectStore: store("old-keys"), repositoryPath: "/p/ns/db/uid" } },
  },
  imagePullSecrets: [{ name: "registry" }, { name: "platform-pull" }],
  tls: { serverSecretName: "server-cert" },
});

describe("referencedSecrets", () => {
  it("names every Secret the spec names, with its field", () => {
    expect(referencedSecrets(everything)).toEqual([
      { field: "spec.backup.objectStore.credentials.secretName", name: "s3-keys" },
      { field: "spec.backup.objectStore.ca.secretName", name: "s3-ca" },
      {
        field: "spec.bootstrap.recovery.source.objectStore.credentials.secretName",
        name: "old-keys",
      },
      { field: "spec.imagePullSecrets[0].name", name: "registry" },
      { field: "spec.imagePullSecrets[1].name", name: "platform-pull" },
      { field: "spec.tls.serverSecretName", name: "server-cert" },
    ]);
  });

  it("names none in a spec without references", () => {
    expect(referencedSecrets(db({}))).toEqual([]);
  });
});

describe("referencesToReview", () => {
  const names = (refs: { name: string }[]) => refs.map(r => r.name);
  it.each<[string, CheckedDatabase, CheckedDatabase | undefined, string[]]>([
    [
      "create: all but the operator's own pull Secret",
      everything,
      undefined,
      ["s3-keys", "s3-ca", "old-keys", "registry", "server-cert"],
    ],
    ["update naming the same Secrets: none", everything, everything, []],
    [
      "update adding a CA: only the CA",
      db({ backup: { objectStore: store("s3-keys", "new-ca") } }),
      db({ backup: { objectStore: store("s3-keys") } }),
      ["new-ca"],
    ],
    [
      "update moving a Secret to another field: none (it was named before)",
      db({ tls: { serverSecretName: "s3-keys" } }),
      db({ backup: { objectStore: store("s3-keys") } }),
      [],
    ],
    [
      "one Secret named twice: asked once",
      db({ backup: { objectStore: store("shared", "shared") } }),
      undefined,
      ["shared"],
    ],
  ])("%s", (_, now, before, expected) => {
    expect(names(referencesToReview(now, before, ["platform-pull"]))).toEqual(expected);
  });
});

describe("secretAccessDenials", () => {
  const user: RequestingUser = { username: "tenant-a", groups: ["system:authenticated"] };
  const reviewerAnswering = (answers: Record<string, boolean | undefined>) => {
    const asked: string[] = [];
    const reviewer: AccessReviewer = {
      mayGetSecret: async (who, namespace, name) => {
        asked.push(`${who.username} ${namespace}/${name}`);
        return answers[name];
      },
    };
    return { reviewer, asked };
  };

  it("admits when the author may get every newly named Secret, asking as the author", async () => {
    const { reviewer, asked } = reviewerAnswering({ "s3-keys": true, "s3-ca": true });
    const spec = db({ backup: { objectStore: store("s3-keys", "s3-ca") } });
    expect(await secretAccessDenials({ db: spec, namespace: "shop", user }, reviewer, [])).toEqual(
      [],
    );
    expect(asked).toEqual(["tenant-a shop/s3-keys", "tenant-a shop/s3-ca"]);
  });

  it("refuses each Secret the author may not get, naming the field", async () => {
    const { reviewer } = reviewerAnswering({ "s3-keys": true, "s3-ca": false });
    const spec = db({ backup: { objectStore: store("s3-keys", "s3-ca") } });
    expect(await secretAccessDenials({ db: spec, namespace: "shop", user }, reviewer, [])).toEqual([
      {
        field: "spec.backup.objectStore.ca.secretName",
        message:
          'tenant-a may not get Secret "s3-ca" in namespace "shop", and a Database may only name Secrets its author may read',
      },
    ]);
  });

  it("refuses, saying so, when the review could not be made (fails closed)", async () => {
    const { reviewer } = reviewerAnswering({});
    const spec = db({ tls: { serverSecretName: "server-cert" } });
    expect(await secretAccessDenials({ db: spec, namespace: "shop", user }, reviewer, [])).toEqual([
      {
        field: "spec.tls.serverSecretName",
        message:
          'could not confirm that tenant-a may get Secret "server-cert" in namespace "shop" (the SubjectAccessReview did not answer); try again',
      },
    ]);
  });

  it("asks nothing for an update that names no new Secret", async () => {
    const { reviewer, asked } = reviewerAnswering({});
    expect(
      await secretAccessDenials(
        { db: everything, old: everything, namespace: "shop", user },
        reviewer,
        [],
      ),
    ).toEqual([]);
    expect(asked).toEqual([]);
  });
});
