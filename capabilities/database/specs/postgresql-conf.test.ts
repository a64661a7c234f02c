import { DB_NAME, input } from "../../../test/unit/builder-fixtures";
import {
  MAX_REPLICATION_SLOTS,
  MAX_WAL_SENDERS,
  quoteValue,
  HbaOptions,
  renderPgHba,
  instanceParameters,
  managedParameters,
  renderManagedConf,
  renderPostgresqlConf,
  synchronousStandbyNames,
  userParameters,
} from "./postgresql-conf";
import type { DatabaseSpec } from "../api/database-schema";

const conf = (): string => renderPostgresqlConf("orders");
const managedConf = (spec: Partial<DatabaseSpec> = {}): string => renderManagedConf(input(spec));
const settingLines = (text: string): string[] =>
  text.split("\n").filter(l => l !== "" && !l.startsWith("#"));

describe("postgresql.conf operator-owned parameters", () => {
  it.each([
    "listen_addresses = '*'",
    "port = '5432'",
    "unix_socket_directories = '/var/lib/postgresql/data/socket,/controller/run'",
    "hba_file = '/config/pg_hba.conf'",
    "cluster_name = 'orders'",
    "hot_standby = 'on'",
    "wal_log_hints = 'on'",
    `max_wal_senders = '${MAX_WAL_SENDERS}'`,
    `max_replication_slots = '${MAX_REPLICATION_SLOTS}'`,
    "archive_mode = 'off'",
    "synchronous_commit = 'on'",
    "wal_retrieve_retry_interval = '1s'",
    "authentication_timeout = '10s'",
    "include_if_exists = '/controller/run/instance.conf'",
  ])("contains %s", line => {
    expect(settingLines(conf())).toContain(line);
  });

  it("holds no spec parameter: those are applied live through postgresql.auto.conf", () => {
    expect(conf()).not.toContain("synchronous_standby_names");
    expect(conf()).not.toContain("wal_keep_size");
  });
});

describe("synchronous_standby_names", () => {
  const all3 = `("${DB_NAME}-0", "${DB_NAME}-1", "${DB_NAME}-2")`;
  it.each([
    [undefined, 3, ""],
    [{ mode: "off" as const }, 3, ""],
    [{ mode: "quorum" as const, number: 1 }, 3, `ANY 1 ${all3}`],
    [{ mode: "quorum" as const, number: 2 }, 3, `ANY 2 ${all3}`],
    [{ mode: "quorum" as const, number: 1 }, 2, `ANY 1 ("${DB_NAME}-0", "${DB_NAME}-1")`],
  ])(
    "for %p and %p instances is %p (never *: a backup's stream must not count)",
    (synchronous, instances, expected) => {
      const built = input({ instances, postgresql: synchronous ? { synchronous } : {} });
      expect(synchronousStandbyNames(built)).toBe(expected);
      expect(managedParameters(built)).toContainEqual(["synchronous_standby_names", expected]);
      expect(settingLines(renderManagedConf(built))).toContain(
        `synchronous_standby_names = '${expected.replace(/'/g, "''")}'`,
      );
    },
  );
});

describe("user parameters", () => {
  const params = (parameters: Record<string, string>) =>
    userParameters(input({ postgresql: { parameters } }).spec);

  it("are sorted by name, after the defaults they may override", () => {
    expect(params({ work_mem: "8MB", max_connections: "200", shared_buffers: "1GB" })).toEqual([
      ["max_connections", "200"],
      ["shared_buffers", "1GB"],
      ["wal_keep_size", "512MB"],
      ["wal_level", "replica"],
      ["wal_receiver_timeout", "10s"],
      ["wal_sender_timeout", "10s"],
      ["work_mem", "8MB"],
    ]);
  });

  it("override the overridable defaults", () => {
    expect(
      params({ wal_keep_size: "2GB", wal_receiver_timeout: "30s", wal_level: "logical" }),
    ).toEqual([
      ["wal_keep_size", "2GB"],
      ["wal_level", "logical"],
      ["wal_receiver_timeout", "30s"],
      ["wal_sender_timeout", "10s"],
    ]);
  });

  it.each(["port", "PORT", "wal_log_hints", "synchronous_standby_names", "primary_conninfo"])(
    "drop the operator-owned %s (defence in depth behind admission)",
    name => {
      expect(params({ [name]: "x" }).map(([n]) => n)).not.toContain(name);
    },
  );

  it.each(["bad name", "a\nport", "x=y", "1abc", "a..b", ""])("drop the invalid name %p", name => {
    expect(params({ [name]: "1" }).map(([n]) => n)).toEqual([
      "wal_keep_size",
      "wal_level",
      "wal_receiver_timeout",
      "wal_sender_timeout",
    ]);
  });

  it("keep extension parameters", () => {
    expect(params({ "pg_stat_statements.max": "5000" })[0]).toEqual([
      "pg_stat_statements.max",
      "5000",
    ]);
  });

  it("appear quoted in the bootstrap postgresql.auto.conf, with the defaults", () => {
    const lines = settingLines(managedConf({ postgresql: { parameters: { work_mem: "8MB" } } }));
    expect(lines).toEqual([
      "wal_keep_size = '512MB'",
      "wal_level = 'replica'",
      "wal_receiver_timeout = '10s'",
      "wal_sender_timeout = '10s'",
      "work_mem = '8MB'",
      "synchronous_standby_names = ''",
    ]);
  });

  it("cannot inject a line through a value", () => {
    const text = managedConf({ postgresql: { parameters: { work_mem: "8MB'\nport = '1" } } });
    expect(settingLines(text).filter(l => l.startsWith("port"))).toEqual([]);
  });
});

describe("instanceParameters: what the operator keeps in one instance's postgresql.auto.conf", () => {
  const built = input({ postgresql: { parameters: { work_mem: "8MB" } } });
  const name = DB_NAME;

  it("is the managed set plus primary_conninfo through -rw, naming this instance and the primary", () => {
    const params = instanceParameters(built, `${name}-2`, `${name}-1`);
    expect(params).toEqual({
      ...Object.fromEntries(managedParameters(built)),
      primary_conninfo:
        `host=${name}-rw port=5432 user=streaming_replica sslmode=verify-full ` +
        "sslrootcert=/tls/server-ca.crt sslcert=/tls/replication.crt sslkey=/tls/replication.key " +
        `application_name=${name}-2 fallback_application_name=${name}-1 connect_timeout=5`,
    });
  });

  it("keeps the superuser's passfile for an instance from before TLS (no certificates mounted)", () => {
    expect(instanceParameters(built, `${name}-2`, `${name}-1`, false).primary_conninfo).toBe(
      `host=${name}-rw port=5432 user=postgres passfile=/controller/run/pgpass ` +
        `application_name=${name}-2 fallback_application_name=${name}-1 connect_timeout=5`,
    );
  });

  it("changes with the primary (a reload then reconnects the WAL receiver)", () => {
    const before = instanceParameters(built, `${name}-2`, `${name}-0`);
    const after = instanceParameters(built, `${name}-2`, `${name}-1`);
    expect(after.primary_conninfo).not.toBe(before.primary_conninfo);
    expect({ ...after, primary_conninfo: "" }).toEqual({ ...before, primary_conninfo: "" });
  });

  it("never reaches the bootstrap file: a new primary has nothing to follow", () => {
    expect(renderManagedConf(built)).not.toContain("primary_conninfo");
  });
});

describe("quoteValue", () => {
  it.each([
    ["8MB", "'8MB'"],
    ["", "''"],
    ["it's", "'it''s'"],
    ["a\\b", "'a\\\\b'"],
    ["a\nb", "'a\\nb'"],
    ["a\rb", "'a\\rb'"],
    ["$user, public", "'$user, public'"],
  ])("quotes %p as %s", (value, quoted) => {
    expect(quoteValue(value)).toBe(quoted);
  });
});

describe("pg_hba.conf", () => {
  const SECURE: HbaOptions = {
    allowPlaintext: false,
    enableSuperuserAccess: false,
    transition: false,
  };
  const rulesOf = (o: HbaOptions) =>
    renderPgHba(o)
      .split("\n")
      .filter(l => l !== "" && !l.startsWith("#"))
      .map(l => l.split(/\s+/));

  /** The method of the first rule matching a connection, as PostgreSQL picks it; "none" refuses. */
  function methodFor(o: HbaOptions, via: "local" | "tls" | "plain", db: string, user: string) {
    const rule = rulesOf(o).find(([type, database, role]) => {
      const typeMatches =
        type === "local" ? via === "local" : type === "host" ? via !== "local" : via === "tls";
      const dbMatches = database === db || (database === "all" && db !== "replication");
      return typeMatches && dbMatches && (role === user || role === "all");
    });
    if (!rule) return "none";
    return rule.slice(rule[0] === "local" ? 3 : 4).join(" ");
  }

  it.each<[string, Partial<HbaOptions>, "local" | "tls" | "plain", string, string, string]>([
    ["the local superuser", {}, "local", "postgres", "postgres", "trust"],
    [
      "local replication (pg_basebackup in the pod)",
      {},
      "local",
      "replication",
      "postgres",
      "trust",
    ],
    ["a local application", {}, "local", "app", "app", "scram-sha-256"],
    ["a standby streaming", {}, "tls", "replication", "streaming_replica", "cert"],
    ["pg_rewind's connection", {}, "tls", "postgres", "streaming_replica", "cert"],
    ["streaming_replica elsewhere", {}, "tls", "app", "streaming_replica", "scram-sha-256"],
    ["the operator's monitor", {}, "tls", "postgres", "pgkeeper_monitor", "cert"],
    ["the monitor elsewhere", {}, "tls", "app", "pgkeeper_monitor", "scram-sha-256"],
    ["the monitor in plaintext", {}, "plain", "postgres", "pgkeeper_monitor", "reject"],
    [
      "the monitor in plaintext, plaintext allowed",
      { allowPlaintext: true },
      "plain",
      "postgres",
      "pgkeeper_monitor",
      "reject",
    ],
    [
      "the superuser's password in plaintext, plaintext allowed (issue 28)",
      { allowPlaintext: true },
      "plain",
      "postgres",
      "postgres",
      "reject",
    ],
    [
      "streaming_replica in plaintext to a database, plaintext allowed",
      { allowPlaintext: true },
      "plain",
      "app",
      "streaming_replica",
      "reject",
    ],
    [
      "the superuser in plaintext, plaintext and superuser access allowed",
      { allowPlaintext: true, enableSuperuserAccess: true },
      "plain",
      "app",
      "postgres",
      "scram-sha-256",
    ],
    [
      "the superuser over TLS: certificate and password",
      {},
      "tls",
      "postgres",
      "postgres",
      "scram-sha-256 clientcert=verify-full",
    ],
    ["the superuser replicating over TLS", {}, "tls", "replication", "postgres", "none"],
    [
      "the superuser with access enabled",
      { enableSuperuserAccess: true },
      "tls",
      "app",
      "postgres",
      "scram-sha-256",
    ],
    ["an application over TLS", {}, "tls", "app", "app", "scram-sha-256"],
    ["an application in plaintext", {}, "plain", "app", "app", "reject"],
    ["the superuser in plaintext", {}, "plain", "postgres", "postgres", "reject"],
    ["a standby in plaintext", {}, "plain", "replication", "streaming_replica", "none"],
    [
      "an application in plaintext, allowed",
      { allowPlaintext: true },
      "plain",
      "app",
      "app",
      "scram-sha-256",
    ],
    [
      "a standby in plaintext, plaintext allowed",
      { allowPlaintext: true },
      "plain",
      "replication",
      "streaming_replica",
      "none",
    ],
    [
      "a pre-TLS standby during the transition",
      { transition: true },
      "tls",
      "replication",
      "postgres",
      "scram-sha-256",
    ],
    [
      "the operator to a pre-TLS pod, in transition",
      { transition: true },
      "plain",
      "postgres",
      "postgres",
      "scram-sha-256",
    ],
    [
      "an application in plaintext, in transition",
      { transition: true },
      "plain",
      "app",
      "app",
      "reject",
    ],
  ])("%s: %s", (...[, options, via, db, user, method]) => {
    expect(methodFor({ ...SECURE, ...options }, via, db, user)).toBe(method);
  });

  it("never trusts a network connection, whatever the options", () => {
    for (const allowPlaintext of [false, true])
      for (const enableSuperuserAccess of [false, true])
        for (const transition of [false, true]) {
          const rules = rulesOf({ allowPlaintext, enableSuperuserAccess, transition });
          expect(rules.filter(r => r[0] !== "local" && r.includes("trust"))).toEqual([]);
        }
  });
});
