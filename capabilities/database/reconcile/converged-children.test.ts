import { Database } from "../api/database";
import { withDefaults } from "../api/defaults";
import { DEFAULT_CONFIG } from "../lib/config";
import * as specs from "../specs";
import type { BuildInput, KeyMaterial, Passwords } from "../specs";
import { FakeCluster } from "../../../test/unit/fake-cluster";
import { ConvergedChildren, inputsDigest } from "./converged-children";
import { ReconcileDeps, forgetAll, forgetDatabase } from "./deps";
import { reconcile } from "./reconcile";

const db = {
  metadata: { name: "orders", namespace: "prod", uid: "u-1", labels: { team: "a" } },
  spec: { version: "16", storage: { size: "1Gi" } },
  status: { initializedAt: "2026-12-07T00:00:00Z", phase: "Healthy" },
} as unknown as Database;
const input: BuildInput = { db, spec: withDefaults(db.spec!, v => `postgres:${v}`) };
const passwords: Passwords = { superuser: "s", app: "a" };
const keys = { tls: { caCert: "ca", serverKey: "k" } } as unknown as KeyMaterial;
const digest = (over: Partial<{ input: BuildInput; passwords: Passwords; ns: string }> = {}) =>
  inputsDigest(over.input ?? input, over.passwords ?? passwords, keys, over.ns ?? "pepr-system");
const withDb = (patch: object): BuildInput => ({ ...input, db: { ...db, ...patch } as Database });

describe("the digest of what a Database's children are built from", () => {
  it.each<[string, () => string]>([
    ["the spec", () => digest({ input: { ...input, spec: { ...input.spec, instances: 5 } } })],
    ["the primary", () => digest({ input: { ...input, primary: "orders-1" } })],
    ["the replicas kept", () => digest({ input: { ...input, replicas: 4 } })],
    ["the TLS transition", () => digest({ input: { ...input, tlsTransition: true } })],
    ["a password", () => digest({ passwords: { ...passwords, app: "b" } })],
    ["the operator's namespace", () => digest({ ns: "other" })],
    ["the uid", () => digest({ input: withDb({ metadata: { ...db.metadata, uid: "u-2" } }) })],
    ["initializedAt", () => digest({ input: withDb({ status: { initializedAt: "x" } }) })],
  ])("changes with %s", (_what, changed) => {
    expect(changed()).not.toBe(digest());
  });

  it.each<[string, BuildInput]>([
    ["the phase", withDb({ status: { ...db.status, phase: "Degraded" } })],
    ["labels", withDb({ metadata: { ...db.metadata, labels: { team: "b" } } })],
    ["the resourceVersion", withDb({ metadata: { ...db.metadata, resourceVersion: "9" } })],
  ])("stays with what no builder reads: %s", (_what, changed) => {
    expect(digest({ input: changed })).toBe(digest());
  });

  it("holds no password or key, only a digest", () => {
    expect(digest()).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("reconcile with what the last pass learnt of the children", () => {
  const setup = () => {
    const cluster = new FakeCluster();
    let n = 0;
    const converged = new ConvergedChildren();
    const deps: ReconcileDeps = {
      cluster,
      config: DEFAULT_CONFIG,
      now: () => new Date("2026-12-07T10:00:00Z"),
      validate: () => [],
      newPassword: () => `pw-${++n}`,
      converged,
    };
    cluster.addDatabase({
      apiVersion: "pgkeeper.dev/v1alpha1",
      kind: "Database",
      metadata: { name: "orders", namespace: "prod" },
      spec: { version: "16", storage: { size: "1Gi" } },
    } as Database);
    return { cluster, deps, converged, run: () => reconcile(deps, "prod", "orders") };
  };
  afterEach(() => jest.restoreAllMocks());

  it("builds no child once every child was found as wanted at its version", async () => {
    const { run } = setup();
    await run(); // creates
    await run(); // finds each as wanted, and remembers its version
    const build = jest.spyOn(specs, "desiredChildren");
    const report = await run();
    expect(build).not.toHaveBeenCalled();
    expect(report.writes).toBe(0);
  });

  it("builds again when a child is at another version, and writes only what differs", async () => {
    const { cluster, run } = setup();
    await run();
    await run();
    const svc = structuredClone(cluster.find("Service", "prod", "orders-rw")!);
    svc.metadata!.annotations = { ...svc.metadata!.annotations, "pgkeeper.dev/applied-hash": "x" };
    cluster.put(svc);
    const build = jest.spyOn(specs, "desiredChildren");
    const applies = cluster.calls.apply;
    await run();
    expect(build).toHaveBeenCalledTimes(1);
    expect(cluster.calls.apply).toBe(applies + 1);
    expect(cluster.find("Service", "prod", "orders-rw")!.metadata!.annotations).not.toEqual(
      svc.metadata!.annotations,
    );
  });

  it("is forgotten with the Database and when leadership is lost", async () => {
    const { deps, converged, run } = setup();
    await run();
    expect(converged.size).toBe(1);
    forgetDatabase(deps, "prod/orders");
    expect(converged.size).toBe(0);
    await run();
    forgetAll(deps);
    expect(converged.size).toBe(0);
  });
});
