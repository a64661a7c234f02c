import { KubeObject } from "../cluster/cluster";
import { isMeaningfulChange, warrantsReconcile } from "./changes";

const base = (kind = "StatefulSet"): KubeObject => ({
  apiVersion: kind === "Pod" ? "v1" : "apps/v1",
  kind,
  metadata: {
    name: "ledger",
    namespace: "team",
    resourceVersion: "5",
    generation: 1,
    labels: { a: "1" },
    annotations: { h: "x" },
  },
  spec: { replicas: 3 },
  status: { readyReplicas: 1 },
});

type Edit = (o: KubeObject) => KubeObject;
const edit = (o: KubeObject, change: Edit): KubeObject => change(structuredClone(o));

describe("isMeaningfulChange", () => {
  it.each<[string, Edit, boolean]>([
    [
      "status only (our status patch, a controller's status)",
      o => ({
        ...o,
        status: { readyReplicas: 3 },
        metadata: { ...o.metadata, resourceVersion: "6" },
      }),
      false,
    ],
    [
      "resourceVersion only",
      o => ({ ...o, metadata: { ...o.metadata, resourceVersion: "9" } }),
      false,
    ],
    [
      "spec (a user's edit, a new generation)",
      o => ({ ...o, spec: { replicas: 1 }, metadata: { ...o.metadata, generation: 2 } }),
      true,
    ],
    ["labels", o => ({ ...o, metadata: { ...o.metadata, labels: { a: "2" } } }), true],
    ["annotations", o => ({ ...o, metadata: { ...o.metadata, annotations: {} } }), true],
    [
      "deletionTimestamp",
      o => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } }),
      true,
    ],
    ["finalizers", o => ({ ...o, metadata: { ...o.metadata, finalizers: ["x"] } }), true],
    [
      "owner references",
      o => ({
        ...o,
        metadata: {
          ...o.metadata,
          ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "u" }],
        },
      }),
      true,
    ],
    ["data (a Secret or ConfigMap edited)", o => ({ ...o, data: { k: "v" } }), true],
  ])("%s → %p", (_name, change, expected) => {
    expect(isMeaningfulChange(base(), edit(base(), change))).toBe(expected);
  });

  it.each([
    ["a Pod's (readiness is what reconcile observes)", "Pod", { phase: "Running" }],
    ["a Job's (its end finishes a Backup)", "Job", { succeeded: 1 }],
  ])("%s status matters", (_title, kind, status) => {
    const obj = base(kind);
    expect(
      isMeaningfulChange(
        obj,
        edit(obj, o => ({ ...o, status })),
      ),
    ).toBe(true);
  });

  it("a first sighting always matters", () => {
    expect(isMeaningfulChange(undefined, base())).toBe(true);
  });
});

describe("warrantsReconcile", () => {
  it.each([
    ["added", true],
    ["changed", true],
    ["unchanged", false],
    ["stale", false],
  ] as const)("%s → %p", (outcome, expected) => {
    const next = edit(base(), o => ({ ...o, spec: { replicas: 2 } }));
    expect(warrantsReconcile(outcome, outcome === "added" ? undefined : base(), next)).toBe(
      expected,
    );
  });
});
