/**
 * The objects of `pepr build`'s YAML (dist/pepr-module-pgkeeper.yaml), already customized by
 * deploy/operator/manifests.ts (ADR 0024), sorted into what the chart needs to know about them.
 */
import type { KubernetesObject, V1Deployment } from "@kubernetes/client-node";

export type Role = "watcher" | "admission";
export const ROLES: readonly Role[] = ["watcher", "admission"];
const CONTROLLER_LABEL = "pepr.dev/controller";

export interface ModuleObjects {
  /** The one namespace every namespaced object is in; the webhook certificate names it. */
  namespace: string;
  /** The admission Service, whose DNS name the webhook certificate is issued for. */
  admissionService: string;
  deployments: Record<Role, V1Deployment>;
  /** Everything but the Namespace (which the chart leaves to --create-namespace). */
  objects: KubernetesObject[];
}

const roleOf = (o: KubernetesObject): string | undefined => o.metadata?.labels?.[CONTROLLER_LABEL];

function theOne<T extends KubernetesObject>(objects: KubernetesObject[], what: string): T {
  if (objects.length !== 1) {
    throw new Error(`the module YAML holds ${objects.length} ${what}, not exactly one`);
  }
  return objects[0] as T;
}

/** Sorts the module's objects; throws when the YAML is not shaped as the chart assumes. */
export function moduleObjects(all: KubernetesObject[]): ModuleObjects {
  const namespace = theOne(
    all.filter(o => o.kind === "Namespace"),
    "Namespaces",
  ).metadata!.name!;
  const objects = all.filter(o => o.kind !== "Namespace");
  const elsewhere = objects.filter(
    o => o.metadata?.namespace && o.metadata.namespace !== namespace,
  );
  if (elsewhere.length > 0) {
    throw new Error(`objects outside ${namespace}: ${elsewhere.map(o => o.metadata?.name)}`);
  }
  const deployment = (role: Role): V1Deployment =>
    theOne(
      objects.filter(o => o.kind === "Deployment" && roleOf(o) === role),
      `${role} Deployments`,
    );
  const service = theOne(
    objects.filter(o => o.kind === "Service" && roleOf(o) === "admission"),
    "admission Services",
  );
  return {
    namespace,
    admissionService: service.metadata!.name!,
    deployments: { watcher: deployment("watcher"), admission: deployment("admission") },
    objects,
  };
}

/**
 * `registry:5000/path/name:tag` → repository and tag, split at the last `:` after the last `/` (a
 * registry's port is no tag; no tag is `latest`, as for a container runtime). A digest splits too
 * (`name@sha256` and the hex), and `repository:tag` puts it back together.
 */
export function splitImage(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(":");
  if (colon < 0 || image.indexOf("/", colon) >= 0) return { repository: image, tag: "latest" };
  return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}
