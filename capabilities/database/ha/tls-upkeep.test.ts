import { KubeObject } from "../cluster/cluster";
import { ProbeRecord } from "../instance/monitor";
import { InstanceProbe } from "../instance/types";
import { mountsTls, targetsFor } from "../instance/targets";
import { tlsUpkeep } from "./tls-upkeep";

const probe = (over: Partial<InstanceProbe> = {}): InstanceProbe => ({
  inRecovery: true,
  timeline: 1,
  lsn: "0/1",
  postmasterStartTime: "t0",
  pendingRestart: [],
  standbys: [],
  ...over,
});
const record = (p?: InstanceProbe, ok = true): ProbeRecord =>
  ({ ok, failures: ok ? 0 : 3, probe: p, uid: "u" }) as unknown as ProbeRecord;

describe("tlsUpkeep", () => {
  it.each<[string, [string, ProbeRecord][], { reload: string[]; ensureRoles: boolean }]>([
    [
      "nothing changed",
      [["db-0", record(probe({ inRecovery: false }))]],
      { reload: [], ensureRoles: false },
    ],
    [
      "files changed on two instances",
      [
        ["db-1", record(probe({ configFilesChanged: true }))],
        ["db-0", record(probe({ inRecovery: false, configFilesChanged: true }))],
        ["db-2", record(probe())],
      ],
      { reload: ["db-0", "db-1"], ensureRoles: false },
    ],
    [
      "an instance that does not answer is left for later",
      [["db-1", record(probe({ configFilesChanged: true }), false)]],
      { reload: [], ensureRoles: false },
    ],
    [
      "a primary whose roles are missing or older gets them",
      [["db-0", record(probe({ inRecovery: false, rolesOutdated: true }))]],
      { reload: [], ensureRoles: true },
    ],
    [
      "a standby is no primary to create them on",
      [["db-0", record(probe({ inRecovery: true, rolesOutdated: true }))]],
      { reload: [], ensureRoles: false },
    ],
  ])("%s", (_, records, expected) => {
    expect(tlsUpkeep(new Map(records), "db-0")).toEqual(expected);
  });
});

const pod = (name: string, ip: string, volumes: string[]): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "shop" },
  spec: { volumes: volumes.map(v => ({ name: v })) },
  status: { podIP: ip },
});

describe("targetsFor", () => {
  const superuser = { cert: "SU-CERT", key: "SU-KEY" };
  const monitor = { cert: "MON-CERT", key: "MON-KEY" };
  const tls = { ca: "CA", superuser, monitor };
  const pods = [pod("db-0", "10.0.0.1", ["config", "tls"]), pod("db-1", "10.0.0.2", ["config"])];
  const of = targetsFor(pods, { password: "pw", tls }, "db-hl");
  const asSuperuser = {
    host: "10.0.0.1",
    port: 5432,
    password: "pw",
    tls: { ca: "CA", ...superuser, servername: "db-0.db-hl.shop.svc" },
  };

  it("logs in as pgkeeper_monitor by certificate, checking the pod's own DNS name, the superuser as its fallback", () => {
    expect(of("10.0.0.1")).toEqual({
      host: "10.0.0.1",
      port: 5432,
      user: "pgkeeper_monitor",
      password: "",
      database: "postgres",
      tls: { ca: "CA", ...monitor, servername: "db-0.db-hl.shop.svc" },
      fallback: asSuperuser,
    });
  });

  it("has no superuser fallback once the monitor has logged in: a refusal then is not obeyed", () => {
    const after = targetsFor(pods, { password: "pw", tls }, "db-hl", false);
    expect(after("10.0.0.1")).toEqual({
      host: "10.0.0.1",
      port: 5432,
      user: "pgkeeper_monitor",
      password: "",
      database: "postgres",
      tls: { ca: "CA", ...monitor, servername: "db-0.db-hl.shop.svc" },
    });
    expect(after("10.0.0.1", "superuser")).toEqual(asSuperuser); // asked for, it still is
  });

  it("logs in as the superuser, with its certificate and password, when asked", () => {
    expect(of("10.0.0.1", "superuser")).toEqual(asSuperuser);
  });

  it("logs in as the superuser while the operator has no monitor certificate yet", () => {
    const before = targetsFor(pods, { password: "pw", tls: { ca: "CA", superuser } }, "db-hl");
    expect(before("10.0.0.1")).toEqual(asSuperuser);
  });

  it("reaches a pod from before TLS as before (it has no certificate to serve)", () => {
    expect(mountsTls(pods[1])).toBe(false);
    expect(of("10.0.0.2")).toEqual({ host: "10.0.0.2", port: 5432, password: "pw" });
  });

  it("logs in as another role with its own password when asked", () => {
    const login = { user: "app", password: "app-pw", database: "app" };
    expect(of("10.0.0.1", login)).toMatchObject(login);
    expect(of("10.0.0.1", login).fallback).toBeUndefined();
  });

  it("uses no TLS before the operator has its certificate (the Secrets are not there yet)", () => {
    expect(targetsFor(pods, { password: "pw" }, "db-hl")("10.0.0.1").tls).toBeUndefined();
  });
});
