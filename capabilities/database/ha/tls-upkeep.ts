/**
 * Keeps each instance on the TLS material and pg_hba.conf it has mounted (ADR 0017), with no
 * restart: an instance whose pg_hba.conf or certificate files changed on disk since it last
 * loaded its configuration (the kubelet updated `<db>-config` or `<db>-tls`: a renewed
 * certificate, plaintext allowed or not) is reloaded; a primary whose operator roles are missing
 * or older than this version's (specs/roles.ts: a database cluster from before TLS or before the
 * monitor role) gets them as the superuser, before its standbys restart and stream as
 * streaming_replica, and before the monitor can log in.
 * Level-based: what the probe sees decides, so nothing is remembered, and a failure is tried again
 * at the next pass.
 */
import { isTerminating, podIP } from "../cluster/cluster";
import { errorMessage } from "../lib/errors";
import { DatabaseMemory } from "./memory";
import { ProbeRecord } from "../instance/monitor";
import { HaStepInput, announceOnce } from "./step-input";

/** The reloads and the role a pass must make, from the probes. Pure. */
export function tlsUpkeep(
  records: Map<string, ProbeRecord>,
  primary: string,
): { reload: string[]; ensureRoles: boolean } {
  const reload = [...records]
    .filter(([, r]) => r.ok && r.probe?.configFilesChanged)
    .map(([name]) => name)
    .sort();
  const role = records.get(primary);
  const ensureRoles = Boolean(
    role?.ok && role.probe && !role.probe.inRecovery && role.probe.rolesOutdated,
  );
  return { reload, ensureRoles };
}

export async function keepTls(
  step: HaStepInput,
  records: Map<string, ProbeRecord>,
  memory: Pick<DatabaseMemory, "announced">,
): Promise<void> {
  const { reload, ensureRoles } = tlsUpkeep(records, step.primary);
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
  if (ensureRoles)
    await attempt("setting up the operator's roles", step.primary, ip =>
      step.sql.ensureRoles(step.target(ip, "superuser")),
    );
  for (const name of reload)
    await attempt("reloading changed configuration files", name, ip =>
      step.sql.reloadConfiguration(step.target(ip)),
    );
  if (errors.length > 0)
    await announceOnce(memory, step, "Warning", "ConfigurationNotReloaded", errors.join("; "));
}
