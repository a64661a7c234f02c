/**
 * The informers against the real apiserver, as the operator's identity: objects wearing pgkeeper's
 * labels are held only if a known Database owns them (security finding: a tenant could grow the
 * operator's memory, and with it every Database's failover, by copying our labels onto thousands
 * of objects in their own namespace). A Database created later is handed on only once the
 * objects that already carried its name are in the cache.
 */
import { SourceFactory, startInformers } from "../../capabilities/database/cache/informers";
import { apiSource } from "../../capabilities/database/cache/api-source";
import { ObjectCache } from "../../capabilities/database/cache/object-cache";
import { Owners } from "../../capabilities/database/cache/owners";
import { connect, requester } from "../../capabilities/database/lib/kube-api";
import { watchStreamer } from "../../capabilities/database/lib/kube-watch";
import { env } from "./harness/env";
import { database, deleteNamespace, freshNamespace, installCrd } from "./harness/fixtures";
import { create, kubectlOk } from "./harness/kubectl";
import { waitFor } from "./harness/wait";

/** More than one LIST page (500): the lists go through in pages. */
const IMPOSTORS = 600;

const configMap = (namespace: string, name: string, db: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace,
    labels: { "app.kubernetes.io/managed-by": "pgkeeper", "pgkeeper.dev/database": db },
  },
  data: { padding: "x".repeat(4096) },
});

const createAll = (objects: object[]) =>
  kubectlOk(
    ["create", "-f", "-"],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );

let own: string;
let tenant: string;
const cache = new ObjectCache(false);
const owners = new Owners();
const handedOn: { name: string; configMaps: number }[] = [];
let stop: () => void = () => undefined;
let held: () => number = () => 0;

const names = (namespace: string) =>
  cache
    .list("v1/ConfigMap", namespace, {})
    .map(o => o.metadata?.name)
    .sort();

beforeAll(async () => {
  await installCrd();
  own = freshNamespace("informers-own");
  tenant = freshNamespace("informers-tenant");
  create(database(own, "orders"));
  createAll([configMap(own, "orders-config", "orders")]);
  // A tenant's impostors: our labels, the name of a Database that is not there (yet).
  createAll(
    Array.from({ length: IMPOSTORS }, (_, i) => configMap(tenant, `impostor-${i}`, "victim")),
  );
  const connection = connect({ kubeconfig: env.operatorKubeconfig });
  const io = { request: requester(() => connection), watch: watchStreamer(() => connection) };
  const source: SourceFactory = (ref, scope) => apiSource(ref, scope, io);
  const informers = startInformers(
    { cache, owners, onEvent: () => undefined, source },
    {
      namespaces: [],
      onDatabase: (phase, db) => {
        if (phase === "DELETED") return;
        const name = db.metadata?.name ?? "";
        const configMaps = cache.list("v1/ConfigMap", db.metadata?.namespace ?? "", {
          "pgkeeper.dev/database": name,
        }).length;
        handedOn.push({ name, configMaps });
      },
    },
  );
  stop = informers.stop;
  held = informers.held;
  await waitFor("the ConfigMap informer to list", () => cache.isSynced("v1/ConfigMap"));
});

afterAll(async () => {
  stop();
  await Promise.all([deleteNamespace(own), deleteNamespace(tenant)]);
});

describe("informers: only objects of known Databases are held", () => {
  it(`holds the known Database's ConfigMap and none of ${IMPOSTORS} impostors`, () => {
    expect(names(own)).toEqual(["orders-config"]);
    expect(names(tenant)).toEqual([]);
    // The reflectors hold no impostor either. Other files' Databases share this apiserver and
    // their namespaces may still be terminating (CI once counted 55 of their objects here), so the
    // bound is the impostors' count, which a leak would reach, not a small number.
    expect(held()).toBeLessThan(IMPOSTORS);
    // Known from the first list: handed on at once (reconcile reads the API until kinds sync).
    expect(handedOn.map(d => d.name)).toContain("orders");
  });

  it("drops impostors the watch delivers, and holds a known Database's new objects", async () => {
    createAll([
      configMap(tenant, "impostor-late", "victim"),
      configMap(own, "orders-late", "orders"),
    ]);
    await waitFor("the new ConfigMap of orders", () => names(own).includes("orders-late"));
    expect(names(tenant)).toEqual([]);
  });

  it("hands on a Database created later with the objects already carrying its name", async () => {
    create(database(tenant, "victim"));
    const victim = await waitFor("victim to be handed on", () =>
      handedOn.find(d => d.name === "victim"),
    );
    expect(victim.configMaps).toBe(IMPOSTORS + 1);
    expect(names(tenant)).toHaveLength(IMPOSTORS + 1);
  });
});
