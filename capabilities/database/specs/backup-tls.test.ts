import type { V1Container } from "@kubernetes/client-node";
import { fixtureTls, input, NAMESPACE } from "../../../test/unit/builder-fixtures";
import { BackupTls, buildBackupTlsSecret, serverDnsNames } from "./backup-tls";
import { buildConfigMap } from "./configmap";
import { desiredChildren, obsoleteChildren } from "./index";
import { buildStatefulSet } from "./statefulset";

const STORE = { endpoint: "s3.internal:9000", bucket: "pg", credentials: { secretName: "s3" } };
const archiving = input({ backup: { objectStore: STORE } });
const plain = input();
const TLS: BackupTls = {
  ca: "CA",
  serverCert: "SC",
  serverKey: "SK",
  clientCert: "CC",
  clientKey: "CK",
};
const PASSWORDS = { superuser: "s", app: "a" };
const containers = (i: typeof plain): V1Container[] =>
  buildStatefulSet(i, "h").spec!.template.spec!.containers;

describe("the backup TLS Secret and the pgbackrest sidecar", () => {
  it("names every instance behind the headless Service, short and fully qualified", () => {
    expect(serverDnsNames(archiving)).toEqual([
      `*.orders-hl.${NAMESPACE}.svc`,
      `*.orders-hl.${NAMESPACE}.svc.cluster.local`,
    ]);
  });

  it("holds each part under its file name, base64", () => {
    const secret = buildBackupTlsSecret(archiving, TLS)!;
    expect(secret.metadata.name).toBe("orders-backup-tls");
    expect(secret.data).toEqual({
      "ca.crt": Buffer.from("CA").toString("base64"),
      "server.crt": Buffer.from("SC").toString("base64"),
      "server.key": Buffer.from("SK").toString("base64"),
      "client.crt": Buffer.from("CC").toString("base64"),
      "client.key": Buffer.from("CK").toString("base64"),
    });
  });

  it.each([
    ["archiving", archiving, true],
    ["not archiving", plain, false],
  ])("%s: Secret, sidecar and server configuration present = %p", (_t, i, present) => {
    const kinds = desiredChildren(
      i,
      PASSWORDS,
      { tls: fixtureTls(), backupTls: TLS },
      "pepr-system",
    ).map(c => `${c.kind}/${c.metadata.name}`);
    expect(kinds.includes("Secret/orders-backup-tls")).toBe(present);
    expect(obsoleteChildren(i).some(r => r.name === "orders-backup-tls")).toBe(!present);
    expect(containers(i).map(c => c.name)).toEqual(
      present ? ["postgres", "pgbackrest", "metrics"] : ["postgres", "metrics"],
    );
    const conf = buildConfigMap(i).data?.["pgbackrest.conf"] ?? "";
    expect(conf.includes("[global:server]")).toBe(present);
  });

  it("runs the server wrapper with the data, socket and certificates mounted", () => {
    const sidecar = containers(archiving)[1];
    expect(sidecar.command).toEqual(["/bin/sh", "/config/pgbackrest-server.sh"]);
    expect(sidecar.ports).toEqual([{ name: "pgbackrest", containerPort: 8432, protocol: "TCP" }]);
    expect(Object.fromEntries(sidecar.volumeMounts!.map(m => [m.name, m.mountPath]))).toEqual({
      pgdata: "/var/lib/postgresql/data",
      config: "/config",
      run: "/controller/run",
      tmp: "/tmp",
      "pgbackrest-tls": "/pgbackrest-tls",
    });
    const volume = buildStatefulSet(archiving, "h").spec!.template.spec!.volumes!.find(
      v => v.name === "pgbackrest-tls",
    );
    expect(volume?.secret).toEqual({ secretName: "orders-backup-tls", defaultMode: 0o440 });
    expect(buildConfigMap(archiving).data?.["pgbackrest-server.sh"]).toContain(
      'pgbackrest --config="$CONF" server',
    );
  });

  it("accepts only the backup host's certificate, for the stanza", () => {
    const conf = buildConfigMap(archiving).data?.["pgbackrest.conf"] ?? "";
    expect(conf).toContain("tls-server-auth=pgkeeper-backup=db");
    expect(conf).toContain("tls-server-cert-file=/pgbackrest-tls/server.crt");
  });

  it("builds no Secret without material", () => {
    expect(buildBackupTlsSecret(archiving, undefined)).toBeUndefined();
  });
});
