import { Database } from "../api/database";
import { KubeApiError, KubeRequest } from "../lib/kube-api";
import { CHILD_KINDS } from "../api/kinds";
import { apiCluster, collectionPath, objectPath } from "./api-cluster";

describe("api-cluster paths", () => {
  it.each([
    ["v1", "Secret", "/api/v1/namespaces/ns/secrets"],
    ["apps/v1", "StatefulSet", "/apis/apps/v1/namespaces/ns/statefulsets"],
    ["policy/v1", "PodDisruptionBudget", "/apis/policy/v1/namespaces/ns/poddisruptionbudgets"],
    ["pgkeeper.dev/v1alpha1", "Database", "/apis/pgkeeper.dev/v1alpha1/namespaces/ns/databases"],
    [
      "networking.k8s.io/v1",
      "NetworkPolicy",
      "/apis/networking.k8s.io/v1/namespaces/ns/networkpolicies",
    ],
  ])("%s %s", (apiVersion, kind, path) => {
    expect(collectionPath({ apiVersion, kind }, "ns")).toBe(path);
    expect(objectPath({ apiVersion, kind, namespace: "ns", name: "a" })).toBe(`${path}/a`);
  });

  // The resource names the apiserver serves (kubectl api-resources), for every managed kind.
  const RESOURCES: Record<string, string> = {
    Secret: "secrets",
    ConfigMap: "configmaps",
    Service: "services",
    Pod: "pods",
    PersistentVolumeClaim: "persistentvolumeclaims",
    StatefulSet: "statefulsets",
    PodDisruptionBudget: "poddisruptionbudgets",
    NetworkPolicy: "networkpolicies",
    ServiceAccount: "serviceaccounts",
    CronJob: "cronjobs",
    Job: "jobs",
  };
  it.each(CHILD_KINDS.map(k => [k.kind, k] as const))("%s: the served resource name", (kind, k) => {
    expect(RESOURCES[kind]).toBeDefined();
    expect(collectionPath(k, "ns").split("/").pop()).toBe(RESOURCES[kind]);
  });

  it("refuses kinds pgkeeper does not manage", () => {
    expect(() => collectionPath({ apiVersion: "v1", kind: "Node" }, "ns")).toThrow(
      "pgkeeper does not manage v1 Node",
    );
  });
});

describe("api-cluster Events", () => {
  it("an Event the apiserver refuses (namespace being deleted) never fails the caller", async () => {
    const sent: string[] = [];
    const refuse: KubeRequest = async <T>(method: string, path: string): Promise<T> => {
      sent.push(`${method} ${path}`);
      throw new KubeApiError(
        403,
        { reason: "Forbidden", message: "being terminated" },
        method,
        path,
      );
    };
    const db = { metadata: { name: "a", namespace: "n" } } as Database;
    await expect(
      apiCluster(refuse).recordEvent(db, { type: "Normal", reason: "X", message: "m" }),
    ).resolves.toBeUndefined();
    expect(sent).toEqual(["POST /api/v1/namespaces/n/events"]);
  });
});
