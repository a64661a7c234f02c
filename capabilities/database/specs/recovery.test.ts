import type { ResolvedRecovery } from "../api/defaults";
import { pgbackrestTime, recoveryFiles, restoreOptions } from "./recovery";

const SOURCE: ResolvedRecovery["source"] = {
  objectStore: {
    endpoint: "s3.example.internal:9000",
    bucket: "pg",
    region: "eu-west-1",
    uriStyle: "path",
    credentials: { secretName: "s3", accessKeyIdKey: "id", secretAccessKeyKey: "secret" },
  },
  repositoryPath: "/prod/orders/1b2c",
};

describe("pgbackrestTime", () => {
  it.each([
    ["2026-12-02T10:00:00Z", "2026-12-02 10:00:00+00"],
    ["2026-12-02T10:00:00.123456Z", "2026-12-02 10:00:00.123456+00"],
    ["2026-12-02t10:00:00.5z", "2026-12-02 10:00:00.5+00"],
    ["2026-12-02T11:30:00.25+01:30", "2026-12-02 10:00:00.25+00"],
    ["2026-12-01T23:00:00-02:00", "2026-12-02 01:00:00+00"],
  ])("%s → %s", (input, expected) => {
    expect(pgbackrestTime(input)).toBe(expected);
  });

  it.each(["2026-12-02 10:00:00", "yesterday", "2026-13-02T10:00:00Z"])("refuses %s", input => {
    expect(() => pgbackrestTime(input)).toThrow(/not an RFC 3339 time/);
  });
});

describe("restoreOptions", () => {
  it.each<[string, ResolvedRecovery["target"], string[]]>([
    ["no target: the end of the archive", undefined, ["--type=default"]],
    [
      "time",
      { time: "2026-12-02T10:00:00Z" },
      ["--type=time", "--target=2026-12-02 10:00:00+00", "--target-action=promote"],
    ],
    ["lsn", { lsn: "0/3000060" }, ["--type=lsn", "--target=0/3000060", "--target-action=promote"]],
    ["xid", { xid: 1234 }, ["--type=xid", "--target=1234", "--target-action=promote"]],
    [
      "restore point with a space",
      { name: "before migration" },
      ["--type=name", "--target=before migration", "--target-action=promote"],
    ],
    ["immediate", { immediate: true }, ["--type=immediate", "--target-action=promote"]],
  ])("%s", (_, target, expected) => {
    expect(restoreOptions({ source: SOURCE, ...(target ? { target } : {}) })).toEqual(expected);
  });

  it("names the backup set when given", () => {
    expect(restoreOptions({ source: SOURCE, backupSet: "20261202-030000F" })).toEqual([
      "--type=default",
      "--set=20261202-030000F",
    ]);
  });
});

describe("recoveryFiles", () => {
  it("adds nothing without bootstrap.recovery", () => {
    expect(recoveryFiles(undefined)).toEqual({});
  });

  it("points pgBackRest at the source's repository, with its CA file only when one is given", () => {
    const files = recoveryFiles({ source: SOURCE, target: { lsn: "0/3000060" } });
    expect(Object.keys(files).sort()).toEqual([
      "pgbackrest-restore-wal.sh",
      "pgbackrest-source.conf",
      "recovery-options",
      "recovery.sql",
    ]);
    const conf = files["pgbackrest-source.conf"];
    expect(conf).toContain("repo1-path=/prod/orders/1b2c\n");
    expect(conf).toContain("repo1-s3-endpoint=s3.example.internal\nrepo1-storage-port=9000\n");
    expect(conf).not.toContain("repo1-storage-ca-file");
    expect(files["recovery-options"]).toBe(
      "--type=lsn\n--target=0/3000060\n--target-action=promote\n",
    );
    const withCa = recoveryFiles({
      source: {
        ...SOURCE,
        objectStore: { ...SOURCE.objectStore, ca: { secretName: "ca", key: "ca.crt" } },
      },
    });
    expect(withCa["pgbackrest-source.conf"]).toContain(
      "repo1-storage-ca-file=/pgbackrest-source-ca/ca.crt\n",
    );
  });

  it("never lets an archive-get failure other than 'not found' end recovery early", () => {
    const script = recoveryFiles({ source: SOURCE })["pgbackrest-restore-wal.sh"];
    expect(script).toContain("0 | 1) exit $status ;;");
    expect(script).toContain("exit 126");
  });
});
