import type { KubernetesObject, V1Deployment } from "@kubernetes/client-node";
import { MONITORING, moduleYamlObjects } from "./fixture";
import {
  labelProblems,
  leaseProblems,
  monitoringProblems,
  noMonitoringProblems,
  RELEASE,
  sameAsModuleProblems,
  watcherProblems,
} from "./rendered-checks";

const labelled = (o: KubernetesObject): KubernetesObject => ({
  ...o,
  metadata: {
    ...o.metadata,
    labels: {
      ...o.metadata?.labels,
      "app.kubernetes.io/managed-by": "Helm",
      "app.kubernetes.io/instance": RELEASE,
      "helm.sh/chart": "pgkeeper-0.1.0",
    },
  },
});

/** What helm renders with the defaults, as far as these checks can tell. */
const rendered = (): KubernetesObject[] =>
  moduleYamlObjects()
    .filter(o => o.kind !== "Namespace")
    .map(labelled);

/** `rendered()` with the watcher Deployment changed by `edit`. */
const withWatcher = (edit: (d: V1Deployment) => void): KubernetesObject[] =>
  rendered().map(o => {
    if (o.metadata?.name !== "pepr-pgkeeper-watcher" || o.kind !== "Deployment") return o;
    const copy = structuredClone(o) as V1Deployment;
    edit(copy);
    return copy;
  });

describe("the checks of the rendered chart", () => {
  it("find nothing wrong in the module YAML's objects with Helm's labels", () => {
    const objects = rendered();
    expect([
      ...watcherProblems(objects, 2),
      ...leaseProblems(objects),
      ...labelProblems(objects),
      ...sameAsModuleProblems(objects, moduleYamlObjects()),
      ...noMonitoringProblems(objects),
    ]).toEqual([]);
  });

  it.each<[string, KubernetesObject[], (o: KubernetesObject[]) => string[], RegExp]>([
    [
      "one watcher",
      withWatcher(d => (d.spec!.replicas = 1)),
      o => watcherProblems(o, 2),
      /replicas are not 2/,
    ],
    [
      "a Recreate rollout",
      withWatcher(d => (d.spec!.strategy = { type: "Recreate" })),
      o => watcherProblems(o, 2),
      /strategy not rolling/,
    ],
    [
      "no seccomp",
      withWatcher(d => delete d.spec!.template.spec!.securityContext!.seccompProfile),
      o => watcherProblems(o, 2),
      /seccomp/,
    ],
    [
      "a writable init container",
      withWatcher(d => (d.spec!.template.spec!.initContainers![0].securityContext = {})),
      o => watcherProblems(o, 2),
      /unpacked-module-file has a writable root/,
    ],
    [
      "no Lease rules",
      rendered().map(o => (o.kind === "Role" ? { ...o, rules: [] } : o)) as KubernetesObject[],
      leaseProblems,
      /Lease rules are \[\]/,
    ],
    [
      "an unlabelled object",
      [...rendered(), { kind: "Secret", metadata: { name: "x" } }],
      labelProblems,
      /Secret x lacks/,
    ],
    [
      "a value lost on the way",
      withWatcher(d => (d.spec!.template.spec!.terminationGracePeriodSeconds = 99)),
      o => sameAsModuleProblems(o, moduleYamlObjects()),
      /Deployment\/pepr-pgkeeper-watcher differs/,
    ],
    [
      "an object missing",
      rendered().filter(o => o.kind !== "Role"),
      o => sameAsModuleProblems(o, moduleYamlObjects()),
      /objects .* ≠/,
    ],
    [
      "the Namespace rendered",
      [...rendered(), moduleYamlObjects()[0]],
      o => sameAsModuleProblems(o, moduleYamlObjects()),
      /objects .* ≠/,
    ],
    [
      "a ServiceMonitor with metrics off",
      [...rendered(), MONITORING.serviceMonitor],
      noMonitoringProblems,
      /ServiceMonitor\/pgkeeper rendered with metrics off/,
    ],
    [
      "a metrics Service selecting other pods",
      [
        ...rendered(),
        { ...MONITORING.metricsService, spec: { selector: { app: "other" } } } as KubernetesObject,
        MONITORING.serviceMonitor,
      ],
      o => monitoringProblems(o, MONITORING.dashboardJson),
      /no metrics Service selecting the watcher pods/,
    ],
  ])("find %s", (_title, objects, check, problem) => {
    expect(check(objects).join("\n")).toMatch(problem);
  });
});
