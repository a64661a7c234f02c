/**
 * Issue 15 on a real node (ADR 0017): every connection is TLS by default. A client verifies the
 * server against the app Secret's ca.crt and the Service's name, plaintext is refused, every
 * standby streams over TLS as streaming_replica, a renewed certificate is served with no
 * restart, and a certificate of the user's own is served instead of pgkeeper's. The operator
 * probes as pgkeeper_monitor by certificate, and keeps no superuser session open (ADR 0019).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { database, operatorSuite } from "../integration/harness/fixtures";
import { create, get, kubectl, kubectlOk } from "../integration/harness/kubectl";
import { Operator } from "../integration/harness/operator";
import { waitFor } from "../integration/harness/wait";
import { tlsMaterial } from "../../capabilities/database/pki/database-tls";
import { postgresDnsNames } from "../../capabilities/database/specs/tls";
import { healthy } from "./healthy";
import { appCredentials, psql, superuserAt } from "./psql";

const operator = new Operator("e2e-tls");
let ns: string;
operatorSuite(operator, "tls", created => (ns = created));

const DB = "secure";

/** The certificate a server hands a new TLS connection (SSLRequest, then a handshake). */
function servedFingerprint(ip: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: ip, port: 5432 });
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
    socket.once("error", reject);
    socket.once("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47])));
    socket.once("data", answer => {
      if (answer.toString() !== "S") return reject(new Error("the server offers no TLS"));
      const secure = tlsConnect({ socket, rejectUnauthorized: false }, () => {
        resolve(secure.getPeerCertificate().fingerprint256);
        secure.destroy();
      });
      secure.once("error", reject);
    });
  });
}

const podIp = (name: string): string =>
  String((get("pod", ns, name)?.status as { podIP?: string } | undefined)?.podIP ?? "");

const pod = (name: string) => get("pod", ns, name)!;

const postmasterStart = (name: string): string =>
  psql(superuserAt(ns, DB, pod(name)), "select pg_postmaster_start_time()");

describe("TLS by default", () => {
  beforeAll(async () => {
    create(database(ns, DB, { version: "15", storage: { size: "1Gi" }, instances: 2 }));
    await healthy(ns, DB, 2, operator.logFile);
  }, 420_000);

  it("serves clients over TLS with verify-full against the app Secret's CA and the -rw name", async () => {
    const app = appCredentials(ns, DB);
    const uri = Buffer.from(String(get("secret", ns, `${DB}-app`)?.data?.uri), "base64").toString();
    expect(uri).toMatch(/sslmode=verify-full$/);
    await waitFor("SQL over TLS", () => psql(app, "select 1") === "1", { timeoutMs: 60_000 });
    expect(psql(app, "select ssl from pg_stat_ssl where pid = pg_backend_pid()")).toBe("t");
  });

  it("refuses plaintext clients, and the superuser's password without pgkeeper's certificate", () => {
    const app = appCredentials(ns, DB);
    expect(() => psql(app, "select 1", 15_000, "disable")).toThrow(
      /no pg_hba.conf entry|rejects connection|reject/,
    );
    const superuser = superuserAt(ns, DB, pod(`${DB}-0`));
    const passwordOnly = {
      ...superuser,
      tls: { ...superuser.tls!, cert: undefined, key: undefined },
    };
    expect(() => psql(passwordOnly, "select 1")).toThrow(/certificate|authentication failed/);
    expect(psql(superuser, "select current_user")).toBe("postgres");
  });

  it("streams every standby over TLS as streaming_replica", () => {
    const primary = String(get("database", ns, DB)?.status?.currentPrimary);
    const rows = psql(
      superuserAt(ns, DB, pod(primary)),
      "select r.usename || ' ' || s.ssl from pg_stat_replication r join pg_stat_ssl s using (pid) order by 1",
    );
    expect(rows.split("\n")).toEqual(["streaming_replica true"]);
  });

  it("is probed by the operator as pgkeeper_monitor over TLS, one session each, with no superuser session kept", async () => {
    const sessions = (name: string) =>
      psql(
        superuserAt(ns, DB, pod(name)),
        `select coalesce(string_agg(a.usename || ' ' || s.ssl, ', ' order by a.usename), 'none')
           from pg_stat_activity a join pg_stat_ssl s using (pid)
          where a.client_addr is not null and a.pid <> pg_backend_pid()
            and a.usename in ('postgres', 'pgkeeper_monitor')`,
      );
    for (const name of [`${DB}-0`, `${DB}-1`])
      await waitFor(
        `${name}'s one probe session`,
        () => sessions(name) === "pgkeeper_monitor true",
        { timeoutMs: 30_000, intervalMs: 1000 },
      );
  });

  it("serves a renewed server certificate after a reload, with no restart", async () => {
    const names = [`${DB}-0`, `${DB}-1`];
    const before = await Promise.all(names.map(n => servedFingerprint(podIp(n))));
    const started = names.map(postmasterStart);
    const restarts = names.map(n => JSON.stringify(pod(n).status?.containerStatuses));
    // A certificate that no longer matches its key: pgkeeper issues a new one with the same CA.
    kubectlOk([
      "patch",
      "secret",
      `${DB}-tls`,
      "-n",
      ns,
      "--type",
      "json",
      "-p",
      '[{"op":"remove","path":"/data/tls.key"}]',
    ]);
    await waitFor(
      "every instance serving the renewed certificate",
      async () => {
        const now = await Promise.all(names.map(n => servedFingerprint(podIp(n)).catch(() => "")));
        return now.every((f, i) => f !== "" && f !== before[i]);
      },
      { timeoutMs: 240_000, intervalMs: 2000 },
    );
    expect(names.map(postmasterStart)).toEqual(started);
    expect(names.map(n => JSON.stringify(pod(n).status?.containerStatuses))).toEqual(restarts);
    // Clients still verify against the same ca.crt.
    expect(psql(appCredentials(ns, DB), "select 1")).toBe("1");
  }, 300_000);
});

describe("a certificate of the user's own", () => {
  it("is served instead of pgkeeper's, and clients verify it with its own CA", async () => {
    const name = "own-cert";
    // Issued by a CA of the user's (here pgkeeper's code stands in for cert-manager).
    const input = { db: { metadata: { name, namespace: ns, uid: "x" } }, spec: {} } as never;
    const theirs = tlsMaterial("users-ca", {}, postgresDnsNames(input), new Date()).tls;
    create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "my-server-cert", namespace: ns },
      type: "kubernetes.io/tls",
      stringData: {
        "tls.crt": theirs.serverCert,
        "tls.key": theirs.serverKey,
        "ca.crt": theirs.caCert,
      },
    });
    create(
      database(ns, name, {
        version: "15",
        storage: { size: "1Gi" },
        tls: { serverSecretName: "my-server-cert" },
      }),
    );
    await healthy(ns, name, 1, operator.logFile);
    const app = appCredentials(ns, name);
    expect(app.tls?.ca).toBe(theirs.caCert);
    await waitFor("SQL over the user's certificate", () => psql(app, "select 1") === "1", {
      timeoutMs: 60_000,
    });
    expect(await servedFingerprint(podIp(`${name}-0`))).toBe(
      new X509Certificate(theirs.serverCert).fingerprint256,
    );
  }, 420_000);
});

describe("no secret outside Secrets", () => {
  it("leaves no password or private key in Events, status, ConfigMaps, or any log of the run", () => {
    const secrets = JSON.parse(kubectl(["get", "secrets", "-n", ns, "-o", "json"]).stdout) as {
      items: { metadata: { name: string }; data?: Record<string, string> }[];
    };
    const decode = (v?: string) => Buffer.from(v ?? "", "base64").toString();
    const needles = secrets.items
      .flatMap(s => [
        ...(s.metadata.name.match(/-(superuser|app)$/) ? [decode(s.data?.password)] : []),
        ...["ca.key", "operator.key", "tls.key", "replication.key"]
          .map(k => decode(s.data?.[k]))
          .filter(Boolean)
          // A PEM's body, without its armour lines (which every key shares).
          .map(pem => pem.split("\n").slice(1, 3).join("")),
      ])
      .filter(n => n.length >= 8);
    expect(needles.length).toBeGreaterThan(4);
    const haystacks: [string, string][] = [
      [
        "Events, ConfigMaps, Databases",
        kubectl(["get", "events,configmaps,databases", "-n", ns, "-o", "json"]).stdout,
      ],
      ["the operator's log", readFileSync(operator.logFile, "utf8")],
      ...kubectl(["get", "pods", "-n", ns, "-o", "name"])
        .stdout.split("\n")
        .filter(Boolean)
        .flatMap(p =>
          ["postgres", "pgbackrest", "metrics"].map((c): [string, string] => [
            `${p} ${c}`,
            kubectl(["logs", "-n", ns, p, "-c", c, "--limit-bytes=4000000"]).stdout,
          ]),
        ),
    ];
    const found = haystacks.flatMap(([where, text]) =>
      needles.filter(n => text.includes(n)).map(() => where),
    );
    expect(found).toEqual([]);
  });
});
