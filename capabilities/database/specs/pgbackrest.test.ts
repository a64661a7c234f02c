import { backupHostConf, pgbackrestConf, repositoryPath, tlsServerSection } from "./pgbackrest";

const DB = { namespace: "prod", name: "orders", uid: "1b2c" };
const STORE = {
  endpoint: "s3.pgkeeper-objectstore.svc",
  bucket: "pgkeeper",
  path: "/backups",
  region: "us-east-1",
  uriStyle: "path" as const,
};

describe("repositoryPath", () => {
  it.each([
    ["/backups", "/backups/prod/orders/1b2c"],
    ["/backups/", "/backups/prod/orders/1b2c"],
    ["/", "/prod/orders/1b2c"],
  ])("%s → %s", (path, expected) => {
    expect(repositoryPath({ path }, DB)).toBe(expected);
  });
});

describe("pgbackrestConf", () => {
  it("one S3 repository under the Database's own path, synchronous archiving, no log file", () => {
    expect(pgbackrestConf(STORE, repositoryPath(STORE, DB))).toBe(
      [
        "[global]",
        "repo1-type=s3",
        "repo1-path=/backups/prod/orders/1b2c",
        "repo1-s3-endpoint=s3.pgkeeper-objectstore.svc",
        "repo1-s3-bucket=pgkeeper",
        "repo1-s3-region=us-east-1",
        "repo1-s3-uri-style=path",
        "io-timeout=10",
        "lock-path=/tmp/pgbackrest",
        "log-level-file=off",
        "log-level-console=warn",
        "log-level-stderr=warn",
        "",
        "[db]",
        "pg1-path=/var/lib/postgresql/data/pgdata",
        "pg1-port=5432",
        "pg1-socket-path=/controller/run",
        "pg1-user=postgres",
        "",
      ].join("\n"),
    );
  });

  it("splits a port off the endpoint and names the CA file when given", () => {
    const conf = pgbackrestConf(
      { ...STORE, endpoint: "localhost:17290", caFile: "/s3/ca.crt" },
      "/backups/prod/orders/1b2c",
    );
    expect(conf).toContain("repo1-s3-endpoint=localhost\nrepo1-storage-port=17290\n");
    expect(conf).toContain("repo1-storage-ca-file=/s3/ca.crt\n");
  });

  it("never archives asynchronously (its daemon would become the postmaster's child) nor drops WAL", () => {
    const conf = pgbackrestConf(STORE, repositoryPath(STORE, DB));
    expect(conf).not.toContain("archive-async");
    expect(conf).not.toContain("queue-max");
  });
});

describe("pgBackRest's TLS server and the backup host", () => {
  const TLS = { ca: "/tls/ca.crt", cert: "/tls/tls.crt", key: "/tls/tls.key" };

  it("serves only the backup host's certificate, for this stanza", () => {
    expect(tlsServerSection(TLS)).toBe(
      [
        "[global:server]",
        "tls-server-address=*",
        "tls-server-port=8432",
        "tls-server-ca-file=/tls/ca.crt",
        "tls-server-cert-file=/tls/tls.crt",
        "tls-server-key-file=/tls/tls.key",
        "tls-server-auth=pgkeeper-backup=db",
        "",
      ].join("\n"),
    );
  });

  it.each<[string, string[], boolean, string | undefined]>([
    ["from a standby", ["orders-0.h", "orders-1.h"], true, "y"],
    ["from the primary when asked", ["orders-0.h", "orders-1.h"], false, undefined],
    ["from the primary when it is alone", ["orders-0.h"], true, undefined],
  ])("copies %s", (_, hosts, fromStandby, standby) => {
    const conf = backupHostConf(STORE, "/backups/prod/orders/1b2c", {
      hosts,
      fromStandby,
      retentionFull: 3,
      tls: TLS,
    });
    expect(conf.includes("backup-standby=y")).toBe(standby === "y");
    expect(conf).toContain("repo1-path=/backups/prod/orders/1b2c\n");
    expect(conf).toContain("repo1-retention-full=3\n");
    hosts.forEach((host, i) => {
      expect(conf).toContain(`pg${i + 1}-host=${host}\npg${i + 1}-host-type=tls\n`);
      expect(conf).toContain(`pg${i + 1}-host-cert-file=/tls/tls.crt\n`);
    });
    expect(conf).not.toContain(`pg${hosts.length + 1}-host`);
  });
});
