/**
 * The faults bench/failover injects into a primary, as they happen in production:
 *   delete  the pod is deleted (a drain, an eviction, a human);
 *   kill    postgres's postmaster gets SIGKILL (the OOM killer, a crash);
 *   stop    every PostgreSQL process of the pod stops at once (SIGSTOP: a hung instance). The
 *           kubelet can still kill it, as on a cgroup v2 node where a frozen pod dies to SIGKILL;
 *           a pod that nothing can kill (the cgroup v1 freezer of this machine, a lost node)
 *           waits at the fence by design: the e2e fault matrix has that case;
 *   cut     the pod's traffic is dropped both ways, established connections included (a partition);
 * and the planned change for comparison:
 *   switchover  the annotation that asks the operator to hand the primary to a streaming replica.
 * Each returns how to undo it once the failover is measured (a stopped or cut-off pod that outlived
 * its fence would otherwise stay so).
 */
import { ANNOTATION_SWITCHOVER } from "../../capabilities/database/api/names";
import { kubectlOk } from "../../test/integration/harness/kubectl";
import { postgresPids, postmasterPid, signalEach } from "../../test/e2e/load";
import { cutOff } from "../../test/e2e/network-fault";

export const FAULTS = ["delete", "kill", "stop", "cut", "switchover"] as const;
export type Fault = (typeof FAULTS)[number];

/**
 * Whether the fault's recovery is a write on another server: a killed postmaster may be
 * restarted in place, and then the recovery is the first write after the outage, wherever.
 */
export const movesPrimary = (fault: Fault): boolean => fault !== "kill";

export interface FaultRun {
  fault: Fault;
  /** How many failovers of it to measure. */
  count: number;
}

/** `delete,kill:20`: each fault, with its count after a colon or `count` by default. */
export function parseFaults(text: string, count: number): FaultRun[] {
  const runs = text.split(",").map(entry => {
    const [fault, n] = entry.trim().split(":");
    return { fault, count: n === undefined ? count : Number(n) };
  });
  const bad = runs.filter(
    r =>
      !(FAULTS as readonly string[]).includes(r.fault) || !Number.isInteger(r.count) || r.count < 1,
  );
  if (bad.length > 0)
    throw new Error(
      `FAULTS: cannot read ${bad.map(r => r.fault).join(", ")}: each of ${FAULTS.join(", ")}, optionally with a count (kill:20)`,
    );
  return runs as FaultRun[];
}

export interface Target {
  namespace: string;
  database: string;
  pod: string;
  uid: string;
  ip: string;
  /** A streaming replica: where a switchover goes. */
  replica: string;
}

/** Injects `fault` into the pod; the answer undoes what is left of it (idempotent). */
export function inject(fault: Fault, t: Target): () => void {
  switch (fault) {
    case "delete":
      kubectlOk(["delete", "pod", t.pod, "-n", t.namespace, "--wait=false"]);
      return () => undefined;
    case "kill":
      process.kill(postmasterPid(t.uid), "SIGKILL");
      return () => undefined;
    case "stop": {
      const pids = postgresPids(t.uid);
      signalEach(pids, "SIGSTOP");
      return () => signalEach(pids, "SIGCONT");
    }
    case "cut": {
      const fault = cutOff(t.ip);
      return () => fault.heal();
    }
    case "switchover":
      kubectlOk([
        ...["annotate", "database", t.database, "-n", t.namespace],
        `${ANNOTATION_SWITCHOVER}=${t.replica}`,
      ]);
      return () => undefined;
  }
}
