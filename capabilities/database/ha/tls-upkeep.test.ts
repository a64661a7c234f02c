import { KubeObject } from "../cluster/cluster";
import { ProbeRecord } from "./monitor";
import { InstanceProbe } from "./probe-types";
import { mountsTls, targetsFor } from "./targets";
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
  it.each<[string, [string, ProbeRecord][], { reload: string[]; ensureRole: boolean }]>([
    [
      "nothing changed",
      [["db-0", record(probe({ inRecovery: false }))]],
      { reload: [], ensureRole: false },
    ],
    [
      "files changed on two instances",
      [
        ["db-1", record(probe({ configFilesChanged: true }))],
        ["db-0", record(probe({ inRecovery: false, configFilesChanged: true }))],
        ["db-2", record(probe())],
      ],
      { reload: ["db-0", "db-1"], ensureRole: false },
    ],
    [
      "an instance that does not answer is left for later",
      [["db-1", record(probe({ configFilesChanged: true }), false)]],
      { reload: [], ensureRole: false },
    ],
    [
      "a primary from before TLS gets the replication role",
      [["db-0", record(probe({ inRecovery: false, replicationRoleMissing: true }))]],
      { reload: [], ensureRole: true },
    ],
    [
      "a standby reporting no role is no primary to create it on",
      [["db-0", record(probe({ inRecovery: true, replicationRoleMissing: true }))]],
      { reload: [], ensureRole: false },
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
  const tls = { ca: "CA", cert: "CERT", key: "KEY" };
  const pods = [pod("db-0", "10.0.0.1", ["config", "tls"]), pod("db-1", "10.0.0.2", ["config"])];

  it("reaches a pod that mounts the certificates over TLS, checking its own DNS name", () => {
    expect(targetsFor(pods, { password: "pw", tls }, "db-hl")("10.0.0.1")).toEqual({
      host: "10.0.0.1",
      port: 5432,
      password: "pw",
      tls: { ...tls, servername: "db-0.db-hl.shop.svc" },
    });
  });

  it("reaches a pod from before TLS as before (it has no certificate to serve)", () => {
    expect(mountsTls(pods[1])).toBe(false);
    expect(targetsFor(pods, { password: "pw", tls }, "db-hl")("10.0.0.2")).toEqual({
      host: "10.0.0.2",
      port: 5432,
      password: "pw",
    });
  });

  it("logs in as another role with its own password when asked", () => {
    const login = { user: "app", password: "app-pw", database: "app" };
    expect(targetsFor(pods, { password: "pw", tls }, "db-hl")("10.0.0.1", login)).toMatchObject(
      login,
    );
  });

  it("uses no TLS before the operator has its certificate (the Secrets are not there yet)", () => {
    expect(targetsFor(pods, { password: "pw" }, "db-hl")("10.0.0.1").tls).toBeUndefined();
  });
});
