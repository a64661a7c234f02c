/**
 * The metrics queries step: reads the ConfigMap keys spec.monitoring.customQueries names and
 * checks each (specs/custom-queries.ts), for the children step to put in the sidecar's queries
 * file and the status step to report. Read every pass: a user's ConfigMap is not a child, so its
 * edits arrive with the next resync.
 */
import { identity } from "../specs/meta";
import { customQueries, QueriesRef, QueriesSource } from "../specs/custom-queries";
import { pgkeeperQueryNames } from "../specs/exporter-queries";
import { Cluster } from "../cluster/cluster";
import type { Pass, StepResult } from "./pass";

async function readSource(
  cluster: Cluster,
  namespace: string,
  ref: QueriesRef,
): Promise<QueriesSource> {
  // Not missingIsAbsent: the cache holds pgkeeper's own ConfigMaps only, so a user's is asked
  // of the API (one GET a pass), and absent only when the API says so.
  const configMap = await cluster.get({
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace,
    name: ref.name,
  });
  const data = (configMap as { data?: Record<string, string> } | undefined)?.data;
  return { ref, text: data?.[ref.key] };
}

export async function customQueriesStep({ deps, db, spec }: Pass): Promise<StepResult> {
  const { enabled, customQueries: refs } = spec.monitoring;
  if (!enabled || refs.length === 0) return {};
  const { namespace } = identity(db);
  const sources = await Promise.all(refs.map(ref => readSource(deps.cluster, namespace, ref)));
  return { found: { customQueries: customQueries(sources, pgkeeperQueryNames(spec.version)) } };
}
