import { probeCountsOf, runsOf } from "../e2e/kubelet-probes";
import type { ProbeCounts, ProbedContainer } from "../e2e/kubelet-probes";

const TEXT = `# HELP prober_probe_total [ALPHA] Cumulative number of a liveness, readiness or startup probe for a container by result.
# TYPE prober_probe_total counter
prober_probe_total{container="postgres",namespace="e2e-1",pod="shop-0",pod_uid="u1",probe_type="Liveness",result="successful"} 7
prober_probe_total{container="postgres",namespace="e2e-1",pod="shop-0",pod_uid="u1",probe_type="Startup",result="failed"} 2
prober_probe_total{container="postgres",namespace="e2e-1",pod="shop-0",pod_uid="u1",probe_type="Startup",result="successful"} 1
prober_probe_total{container="postgres",namespace="e2e-1",pod="shop-0",pod_uid="u0",probe_type="Startup",result="successful"} 1
prober_probe_total{container="postgres",namespace="e2e-1",pod="shop-1",pod_uid="u2",probe_type="Readiness",result="successful"} 40
prober_probe_total{container="postgres",namespace="e2e-2",pod="shop-0",pod_uid="u3",probe_type="Readiness",result="successful"} 40
prober_probe_total{container="exporter",namespace="e2e-1",pod="shop-0",pod_uid="u1",probe_type="Readiness",result="successful"} 40
`;

describe("probeCountsOf", () => {
  const shop0 = { namespace: "e2e-1", pod: "shop-0", container: "postgres" };
  it.each<[string, ProbedContainer, ProbeCounts]>([
    [
      "one container of one pod, its earlier incarnations (uids) summed in",
      shop0,
      { "Liveness/successful": 7, "Startup/failed": 2, "Startup/successful": 2 },
    ],
    [
      "the pod of one uid",
      { ...shop0, pod_uid: "u1" },
      { "Liveness/successful": 7, "Startup/failed": 2, "Startup/successful": 1 },
    ],
    ["another pod", { ...shop0, pod: "shop-1" }, { "Readiness/successful": 40 }],
    ["another container", { ...shop0, container: "exporter" }, { "Readiness/successful": 40 }],
    ["a pod the kubelet never probed", { ...shop0, pod: "shop-9" }, {}],
  ])("%s", (_name, which, expected) => {
    expect(probeCountsOf(TEXT, which)).toEqual(expected);
  });
});

describe("runsOf", () => {
  const counts = probeCountsOf(TEXT, { namespace: "e2e-1", pod: "shop-0", container: "postgres" });
  it.each<[Parameters<typeof runsOf>[1], number]>([
    ["Startup", 4],
    ["Liveness", 7],
    ["Readiness", 0],
  ])("%s", (type, expected) => expect(runsOf(counts, type)).toBe(expected));
});
