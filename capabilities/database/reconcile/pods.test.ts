import { KubeObject } from "../cluster/cluster";
import { isInstancePod } from "./pods";

const sts = (name = "orders") => ({ apiVersion: "apps/v1", kind: "StatefulSet", name, uid: "u" });
const pod = (name: string, owners: object[] = []): KubeObject =>
  ({ metadata: { name, ownerReferences: owners } }) as KubeObject;

describe("isInstancePod: which labelled pods are instances of Database orders (3 replicas)", () => {
  it.each<[string, KubeObject, boolean]>([
    ["controlled by its StatefulSet", pod("orders-0", [{ ...sts(), controller: true }]), true],
    [
      "past the count, its StatefulSet's (being removed)",
      pod("orders-4", [{ ...sts(), controller: true }]),
      true,
    ],
    ["controlled by nothing, below the count (being adopted)", pod("orders-2"), true],
    ["controlled by nothing, past the count", pod("orders-3"), false],
    [
      "owned, not controlled, by its StatefulSet",
      pod("orders-3", [{ ...sts(), controller: false }]),
      false,
    ],
    [
      "controlled by another kind",
      pod("orders-1", [{ ...sts(), kind: "ReplicaSet", controller: true }]),
      false,
    ],
    [
      "controlled by another StatefulSet",
      pod("orders-1", [{ ...sts("orders-x"), controller: true }]),
      false,
    ],
    ["not named like an instance", pod("orders-backdoor", [{ ...sts(), controller: true }]), false],
    ["a leading zero", pod("orders-01"), false],
    ["another Database's name", pod("orders-archive-0"), false],
  ])("%s", (_, p, expected) => {
    expect(isInstancePod("orders", 3, p)).toBe(expected);
  });
});
