/**
 * Where the local cluster lives, from the environment hack/test-integration.sh sets up.
 */
import { join } from "node:path";

const repo = join(__dirname, "..", "..", "..");
const work = process.env.PGKEEPER_WORK ?? join(repo, ".work");
const clusterDir = join(work, "cluster");

export const env = {
  repo,
  work,
  /** Admin kubeconfig: what the tests act as (user pgkeeper-admin). */
  kubeconfig: process.env.KUBECONFIG ?? join(clusterDir, "kubeconfig"),
  /** The operator's own identity (user pgkeeper-operator), so the audit log tells its calls apart. */
  operatorKubeconfig:
    process.env.PGKEEPER_OPERATOR_KUBECONFIG ??
    join(clusterDir, "kubeconfigs", "operator.kubeconfig"),
  auditLog: process.env.PGKEEPER_AUDIT_LOG ?? join(clusterDir, "logs", "audit.log"),
  kubectl: process.env.KUBECTL ?? "kubectl",
  logDir: join(work, "test-logs"),
};

export const OPERATOR_USER = "pgkeeper-operator";
