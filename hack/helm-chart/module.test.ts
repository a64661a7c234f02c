import type { KubernetesObject } from "@kubernetes/client-node";
import { moduleYamlObjects, NAMESPACE } from "./fixture";
import { moduleObjects, splitImage } from "./module";

describe("moduleObjects", () => {
  it("finds the namespace, the admission Service and both Deployments, and drops the Namespace", () => {
    const m = moduleObjects(moduleYamlObjects());
    expect(m.namespace).toBe(NAMESPACE);
    expect(m.admissionService).toBe("pepr-pgkeeper");
    expect(m.deployments.watcher.metadata?.name).toBe("pepr-pgkeeper-watcher");
    expect(m.deployments.admission.metadata?.name).toBe("pepr-pgkeeper");
    expect(m.objects.map(o => o.kind)).not.toContain("Namespace");
    expect(m.objects).toHaveLength(moduleYamlObjects().length - 1);
  });

  const without = (kind: string, name?: string) =>
    moduleYamlObjects().filter(o => !(o.kind === kind && (!name || o.metadata?.name === name)));
  const moved: KubernetesObject[] = moduleYamlObjects().map(o =>
    o.kind === "ServiceAccount" ? { ...o, metadata: { ...o.metadata, namespace: "other" } } : o,
  );

  it.each<[string, KubernetesObject[], RegExp]>([
    ["no Namespace", without("Namespace"), /0 Namespaces/],
    ["two Namespaces", [...moduleYamlObjects(), moduleYamlObjects()[0]], /2 Namespaces/],
    ["an object in another namespace", moved, /objects outside pepr-system: pepr-pgkeeper/],
    ["no watcher", without("Deployment", "pepr-pgkeeper-watcher"), /0 watcher Deployments/],
    ["no admission Service", without("Service", "pepr-pgkeeper"), /0 admission Services/],
  ])("refuses a module YAML with %s", (_title, objects, error) => {
    expect(() => moduleObjects(objects)).toThrow(error);
  });
});

describe("splitImage", () => {
  it.each([
    [
      "ghcr.io/defenseunicorns/pepr/controller:v1.1.4",
      "ghcr.io/defenseunicorns/pepr/controller",
      "v1.1.4",
    ],
    ["localhost/pgkeeper/controller:dev", "localhost/pgkeeper/controller", "dev"],
    ["registry:5000/a/b:1.0", "registry:5000/a/b", "1.0"],
    ["registry:5000/a/b", "registry:5000/a/b", "latest"],
    ["controller", "controller", "latest"],
    ["a/b@sha256:abcd", "a/b@sha256", "abcd"],
  ])("%s → %s and %s", (image, repository, tag) => {
    expect(splitImage(image)).toEqual({ repository, tag });
  });
});
