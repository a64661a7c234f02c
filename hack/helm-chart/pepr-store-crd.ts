/**
 * Pepr's PeprStore CRD, as Pepr 1.1.4 defines it (node_modules/pepr/src/lib/assets/store.ts,
 * bundled here with esbuild, which Pepr itself builds with). `pepr deploy` applies it as the
 * installing administrator; a chart must bring it in crds/, because Pepr's controller re-applies
 * it at every start, which the operator's RBAC allows as `patch` of that CRD by name but not as
 * its `create`: without it, a first install on a fresh cluster crash-loops (found by the
 * namespaced e2e, the first Helm install on a cluster where nothing had created it).
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { buildSync } from "esbuild";

const STORE_SOURCE = "pepr/src/lib/assets/store.ts";

export function peprStoreCrd(): KubernetesObject {
  const out = buildSync({
    entryPoints: [require.resolve(STORE_SOURCE)],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "error",
    external: ["kubernetes-fluent-client", "@kubernetes/client-node"],
  });
  const mod: { exports: { peprStoreCRD?: KubernetesObject } } = { exports: {} };
  new Function("module", "exports", "require", out.outputFiles[0].text)(mod, mod.exports, require);
  const crd = mod.exports.peprStoreCRD;
  if (crd?.kind !== "CustomResourceDefinition") {
    throw new Error(`${STORE_SOURCE} exports no peprStoreCRD: Pepr changed, see this file`);
  }
  return crd;
}
