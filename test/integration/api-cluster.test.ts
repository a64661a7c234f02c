/**
 * The Cluster port's API implementation against the real apiserver: the preconditions the HA
 * code relies on (a pod deleted only if it is still the one recorded, with the grace period
 * asked for; a status written only from the current view), an owner added beside the others, and
 * a create that fails on a taken name, whose fields a later apply owns once adopted.
 */
import { apiCluster } from "../../capabilities/database/cluster/api-cluster";
import { httpStatus, isAlreadyExists, isConflict } from "../../capabilities/database/lib/errors";
import { createdFieldsEntry } from "../../capabilities/database/cluster/field-manager";
import { database, deleteNamespace, freshNamespace, installCrd } from "./harness/fixtures";
import { Obj, create, get, kubectl } from "./harness/kubectl";

const cluster = apiCluster();
let ns: string;

beforeAll(async () => {
  await installCrd();
  ns = freshNamespace("api");
});
afterAll(async () => {
  kubectl(["delete", "pod", "--all", "-n", ns, "--grace-period=0", "--force"]);
  await deleteNamespace(ns);
});

/** A pod bound to a node that does not exist: its deletion is graceful, and nothing ends it. */
function boundPod(name: string): Obj {
  create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: ns },
    spec: {
      nodeName: "no-such-node",
      terminationGracePeriodSeconds: 60,
      // What the namespace's `restricted` Pod Security Standard asks of every pod.
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: "c",
          image: "localhost/none:1",
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  });
  return get("pod", ns, name)!;
}

const podRef = (name: string) => ({ apiVersion: "v1", kind: "Pod", namespace: ns, name });

describe("delete", () => {
  it("deletes with the grace period asked for, only the pod with the recorded UID", async () => {
    const pod = boundPod("fenced");
    await cluster.delete(podRef("fenced"), { uid: "not-this-one", gracePeriodSeconds: 1 });
    expect(get("pod", ns, "fenced")?.metadata.deletionTimestamp).toBeUndefined(); // a successor stays
    await cluster.delete(podRef("fenced"), { uid: pod.metadata.uid, gracePeriodSeconds: 1 });
    const deleting = get("pod", ns, "fenced")!;
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(
      (deleting.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds,
    ).toBe(1);
  });

  it("without options uses the pod's own grace period", async () => {
    boundPod("plain");
    await cluster.delete(podRef("plain"));
    const deleting = get("pod", ns, "plain")!;
    expect(
      (deleting.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds,
    ).toBe(60);
  });
});

describe("addOwnerReference", () => {
  it("adds one owner and keeps the others, once however often it is asked", async () => {
    const claimRef = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      namespace: ns,
      name: "pgdata-x-0",
    };
    // Owners that exist: garbage collection deletes an object whose owners are all gone.
    const owner = (name: string) => {
      create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns } });
      return {
        apiVersion: "v1",
        kind: "ConfigMap",
        name,
        uid: get("configmap", ns, name)!.metadata.uid!,
      };
    };
    const first = owner("a");
    create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "pgdata-x-0", namespace: ns, ownerReferences: [first] },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    const second = { ...owner("b"), controller: false, blockOwnerDeletion: true };
    await cluster.addOwnerReference(claimRef, second);
    await cluster.addOwnerReference(claimRef, second);
    const owners = get("pvc", ns, "pgdata-x-0")?.metadata.ownerReferences;
    expect(owners).toHaveLength(2); // (in an order of the apiserver's choosing)
    expect(owners).toEqual(expect.arrayContaining([first, second]));
  });
});

describe("status and annotations", () => {
  it("write only from the current resourceVersion", async () => {
    create({
      ...database(ns, "cas"),
      metadata: {
        name: "cas",
        namespace: ns,
        annotations: { "pgkeeper.dev/switchover-to": "auto" },
      },
    });
    const read = get("database", ns, "cas")!;
    const at = { namespace: ns, name: "cas", resourceVersion: read.metadata.resourceVersion };
    const written = await cluster.patchStatus(at, { phase: "Ready" });
    const stale = await cluster.patchStatus(at, { phase: "Failed" }).catch(e => e);
    expect(isConflict(stale)).toBe(true);
    const staleRemoval = await cluster
      .removeAnnotation(at, "pgkeeper.dev/switchover-to")
      .catch(e => e);
    expect(staleRemoval).toBeInstanceOf(Error);
    const fresh = { ...at, resourceVersion: written.metadata?.resourceVersion };
    await cluster.removeAnnotation(fresh, "pgkeeper.dev/switchover-to");
    const now = get("database", ns, "cas")!;
    expect(now.status?.phase).toBe("Ready");
    expect(now.metadata.annotations?.["pgkeeper.dev/switchover-to"]).toBeUndefined();
  });
});

describe("create, then apply", () => {
  const configMap = (data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "created", namespace: ns, labels: { "pgkeeper.dev/test": "yes" } },
    data,
  });
  const ref = () => ({ apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "created" });

  it("a create fails on a taken name with AlreadyExists and leaves the object as it was", async () => {
    create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "taken", namespace: ns } });
    const err = await cluster
      .create({ ...configMap({ a: "1" }), metadata: { name: "taken", namespace: ns } })
      .catch((e: unknown) => e);
    expect(isAlreadyExists(err)).toBe(true);
    expect(get("configmap", ns, "taken")?.data).toBeUndefined();
  });

  it("an apply after the created fields are adopted removes what the new spec dropped", async () => {
    const created = await cluster.create(configMap({ a: "1", b: "2" }));
    const entry = createdFieldsEntry(created);
    expect(entry).toBeDefined();
    const adopted = await cluster.adoptCreatedFields(ref(), entry!);
    expect(createdFieldsEntry(adopted)).toBeUndefined();
    await cluster.apply(configMap({ a: "1" }));
    expect(get("configmap", ns, "created")?.data).toEqual({ a: "1" });
  });

  it("without the adoption the dropped field would stay (why adoptCreatedFields exists)", async () => {
    await cluster.create({
      ...configMap({ a: "1", b: "2" }),
      metadata: { ...configMap({}).metadata, name: "unadopted" },
    });
    await cluster.apply({
      ...configMap({ a: "1" }),
      metadata: { ...configMap({}).metadata, name: "unadopted" },
    });
    expect(get("configmap", ns, "unadopted")?.data).toEqual({ a: "1", b: "2" });
  });

  it("the adoption fails when the entry is no longer ours at that place", async () => {
    kubectl(["create", "configmap", "theirs", "-n", ns, "--from-literal=a=1"]);
    const err = await cluster
      .adoptCreatedFields({ ...ref(), name: "theirs" }, 0)
      .catch((e: unknown) => e);
    expect(httpStatus(err)).toBe(422);
  });
});

describe("patchLabels", () => {
  it("sets labels on an object that has none, and removing one that is not there is no error", async () => {
    create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "bare", namespace: ns } });
    const ref = { apiVersion: "v1", kind: "ConfigMap", namespace: ns, name: "bare" };
    await cluster.patchLabels(ref, { "pgkeeper.dev/database": "x", absent: null });
    expect(get("configmap", ns, "bare")?.metadata.labels).toEqual({ "pgkeeper.dev/database": "x" });
    await cluster.patchLabels(ref, { "pgkeeper.dev/database": null });
    expect(get("configmap", ns, "bare")?.metadata.labels ?? {}).toEqual({});
  });
});
