/**
 * The operator installs its own CRDs. `pepr deploy` installs Pepr's objects only (a module's CRDs
 * are its own business, docs/pepr-facts.md), and Helm never upgrades what a chart's crds/ holds,
 * so the leader applies them, server-side, each time it starts leading: a new operator build
 * brings its schema with it, and `pepr deploy` alone is a whole install.
 *
 * A CRD of a higher revision (api/crd.ts CRD_REVISION) is left alone: during a rolling upgrade an
 * old replica can still take the lead, and its older schema would make the apiserver prune the
 * stored fields it does not know.
 */
import { CRD_REVISION, CRD_REVISION_ANNOTATION, allCrds } from "../api/crd";
import { isNotFound } from "../lib/errors";
import { KubeRequest } from "../lib/kube-api";

const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const FIELD_MANAGER = "pgkeeper-crds";

export type CrdAction = "apply" | "keep-newer";

/** What to do with a CRD whose live revision annotation is `live` (undefined: absent). */
export function crdAction(live: string | undefined, ours: number = CRD_REVISION): CrdAction {
  // Absent, applied by hand from a deploy/crd.yaml older than the annotation, or unreadable.
  if (live === undefined || !/^\d+$/.test(live)) return "apply";
  return Number(live) > ours ? "keep-newer" : "apply";
}

export interface CrdOutcome {
  name: string;
  action: CrdAction;
  /** The live CRD's revision when it was left alone. */
  liveRevision?: string;
}

interface LiveCrd {
  metadata?: { annotations?: Record<string, string> };
}

/** Applies each CRD unless a newer one is live; the same content applied again writes nothing. */
export async function installCrds(
  api: KubeRequest,
  crds: Record<string, unknown>[] = allCrds(),
): Promise<CrdOutcome[]> {
  const outcomes: CrdOutcome[] = [];
  for (const crd of crds) {
    const name = (crd.metadata as { name: string }).name;
    const path = `${CRD_PATH}/${name}`;
    const live = await api<LiveCrd>("GET", path).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    const liveRevision = live?.metadata?.annotations?.[CRD_REVISION_ANNOTATION];
    const action = crdAction(liveRevision);
    if (action === "apply") {
      await api("PATCH", path, {
        body: crd,
        contentType: "application/apply-patch+yaml", // JSON is YAML
        query: { fieldManager: FIELD_MANAGER, fieldValidation: "Strict", force: true },
      });
      outcomes.push({ name, action });
    } else {
      outcomes.push({ name, action, ...(liveRevision ? { liveRevision } : {}) });
    }
  }
  return outcomes;
}

export interface InstallLoop {
  /** False once the caller stops leading: the next leader installs them. */
  wanted: () => boolean;
  retryMs: number;
  sleep: (ms: number) => Promise<void>;
  onInstalled: (outcomes: CrdOutcome[]) => void;
  onError: (err: unknown, attempt: number) => void;
}

/** installCrds, retried every `retryMs` while `wanted()` (e.g. the apiserver is restarting). */
export async function installCrdsWhileWanted(api: KubeRequest, loop: InstallLoop): Promise<void> {
  for (let attempt = 1; loop.wanted(); attempt++) {
    try {
      loop.onInstalled(await installCrds(api));
      return;
    } catch (err) {
      loop.onError(err, attempt);
      await loop.sleep(loop.retryMs);
    }
  }
}
