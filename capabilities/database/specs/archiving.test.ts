/**
 * What spec.backup.objectStore changes in the children: archive_mode (postgresql.conf, a
 * restart), archive_command and archive_timeout (live), pgBackRest's configuration and the
 * archive_command wrapper (ConfigMap), the keys from the user's Secret and its CA (StatefulSet).
 * And nothing of it without an object store.
 */
import { input, NAMESPACE, DB_NAME, UID } from "../../../test/unit/builder-fixtures";
import { buildConfigMap, configHash } from "./configmap";
import { managedParameters } from "./postgresql-conf";
import { buildStatefulSet } from "./statefulset";

const STORE = {
  objectStore: {
    endpoint: "s3.pgkeeper-objectstore.svc",
    bucket: "pgkeeper",
    credentials: { secretName: "s3" },
    ca: { secretName: "s3-ca" },
  },
};

const container = (spec: Parameters<typeof input>[0]) =>
  buildStatefulSet(input(spec), "hash").spec!.template.spec!.containers[0];

describe("continuous archiving in the children", () => {
  it("turns archive_mode on in postgresql.conf (changing the config hash: a rolling restart)", () => {
    const off = buildConfigMap(input());
    const on = buildConfigMap(input({ backup: STORE }));
    expect(off.data!["postgresql.conf"]).toContain("archive_mode = 'off'");
    expect(on.data!["postgresql.conf"]).toContain("archive_mode = 'on'");
    expect(configHash(on)).not.toBe(configHash(off));
  });

  it("sets archive_command and archive_timeout live, and leaves them out without a store", () => {
    expect(
      Object.fromEntries(
        managedParameters(input({ backup: { ...STORE, archiveTimeoutSeconds: 30 } })),
      ),
    ).toMatchObject({
      archive_command: '/bin/sh /config/pgbackrest-archive.sh "%p"',
      archive_timeout: "30s",
    });
    const without = Object.fromEntries(managedParameters(input()));
    expect(without).not.toHaveProperty("archive_command");
    expect(without).not.toHaveProperty("archive_timeout");
  });

  it("renders pgBackRest's configuration, under the Database's own path, and the wrapper", () => {
    const data = buildConfigMap(input({ backup: STORE })).data!;
    expect(data["pgbackrest.conf"]).toContain(`repo1-path=/${NAMESPACE}/${DB_NAME}/${UID}\n`);
    expect(data["pgbackrest.conf"]).toContain("repo1-storage-ca-file=/pgbackrest-ca/ca.crt\n");
    expect(data["pgbackrest-archive.sh"]).toContain("archive-push");
    expect(buildConfigMap(input()).data).not.toHaveProperty("pgbackrest.conf");
  });

  it("passes the keys from the user's Secret as files of the credentials volume (never environment), and mounts its CA", () => {
    const backup = {
      ...STORE,
      objectStore: {
        ...STORE.objectStore,
        credentials: { secretName: "s3", accessKeyIdKey: "id" },
      },
    };
    const c = container({ backup });
    expect(JSON.stringify(c.env)).not.toMatch(/S3_KEY|secretKeyRef/);
    expect(c.volumeMounts).toContainEqual({
      name: "credentials",
      mountPath: "/credentials",
      readOnly: true,
    });
    const credentials = buildStatefulSet(
      input({ backup }),
      "hash",
    ).spec!.template.spec!.volumes!.find(v => v.name === "credentials");
    expect(credentials?.projected?.sources).toContainEqual({
      secret: {
        name: "s3",
        items: [
          { key: "id", path: "repo1-s3-key" },
          { key: "secretAccessKey", path: "repo1-s3-key-secret" },
        ],
      },
    });
    expect(c.volumeMounts).toContainEqual({
      name: "pgbackrest-ca",
      mountPath: "/pgbackrest-ca",
      readOnly: true,
    });
    const volumes = buildStatefulSet(input({ backup: STORE }), "hash").spec!.template.spec!.volumes;
    expect(volumes).toContainEqual({
      name: "pgbackrest-ca",
      secret: { secretName: "s3-ca", items: [{ key: "ca.crt", path: "ca.crt" }] },
    });
    expect(container({}).env?.map(e => e.name)).not.toContain("PGBACKREST_REPO1_S3_KEY");
  });
});
