/**
 * Keeps each instance on the TLS material and pg_hba.conf it has mounted (ADR 0017), with no
 * restart: an instance whose pg_hba.conf or certificate files changed on disk since it last
 * loaded its configuration (the kubelet updated `<db>-config` or `<db>-tls`: a renewed
 * certificate, plaintext allowed or not) is reloaded; a primary without streaming_replica (a
 * database cluster from before TLS) gets it, before its standbys restart and stream as it.
 * Level-based: what the probe sees decides, so nothing is remembered, and a failure is tried again
 * at the next pass.
 */
import { isTerminating, podIP } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { DatabaseMemory } from "./memory";
import { ProbeRecord } from "./monitor";
import { HaStepInput, announceOnce } from "./step-input";

/** The reloads and the role a pass must make, from the probes. Pure. */
export function tlsUpkeep(
  records: Map<string, ProbeRecord>,
  primary: string,
): { reload: string[]; ensureRole: boolean } {
  const reload = [...records]
    .filter(([, r]) => r.ok && r.probe?.configFilesChanged)
    .map(([name]) => name)
    .sort();
  const role = records.get(primary);
  const ensureRole = Boolean(
    role?.ok && role.probe && !role.probe.inRecovery && role.probe.replicationRoleMissing,
  );
  return { reload, ensureRole };
}

export async function keepTls(
  step: HaStepInput,
  records: Map<string, ProbeRecord>,
  memory: DatabaseMemory,
): Promise<void> {
  if (!step.isLeader()) return;
  const { reload, ensureRole } = tlsUpkeep(records, step.primary);
  const ipOf = (name: string) => {
    const pod = step.pods.find(p => p.metadata?.name === name);
    return pod && !isTerminating(pod) ? podIP(pod) : undefined;
  };
  const errors: string[] = [];
  const attempt = async (what: string, name: string, act: (ip: string) => Promise<void>) => {
    const ip = ipOf(name);
    if (!ip) return;
    try {
      await act(ip);
    } catch (err) {
      errors.push(`${what} on ${name}: ${errorMessage(err)}`);
    }
  };
  if (ensureRole)
    await attempt("creating the replication role", step.primary, ip =>
      step.ha.sql.ensureReplicationRole(step.target(ip)),
    );
  for (const name of reload)
    await attempt("reloading changed configuration files", name, ip =>
      step.ha.sql.reloadConfiguration(step.target(ip)),
    );
  if (errors.length > 0)
    await announceOnce(memory, step, "Warning", "ConfigurationNotReloaded", errors.join("; "));
}
