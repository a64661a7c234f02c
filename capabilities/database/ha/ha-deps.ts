/**
 * The HA machinery of a watcher process: the instance monitor over the real SQL edge, wired to
 * wake the controller, and the failover metric. One place, used by the runtime and the fallback
 * controller alike.
 */
import { OperatorConfig } from "../lib/config";
import { POSTGRES_PORT } from "../specs/layout";
import { HaDeps, newHaMemory } from "./ha-step";
import * as instanceSql from "./instance-sql";
import { InstanceMonitor } from "./monitor";

export function realHaDeps(
  config: OperatorConfig,
  wake: (namespace: string, name: string) => void,
  onFailover?: HaDeps["onFailover"],
): HaDeps {
  const monitor = new InstanceMonitor({
    sql: instanceSql,
    intervalMs: config.probeIntervalMs,
    timeoutMs: config.probeTimeoutMs,
    failureThreshold: config.probeFailureThreshold,
    port: POSTGRES_PORT,
    onChange: key => {
      const [namespace, name] = key.split("/");
      wake(namespace, name);
    },
  });
  return {
    monitor,
    sql: instanceSql,
    failureThreshold: config.probeFailureThreshold,
    memory: newHaMemory(),
    ...(onFailover ? { onFailover } : {}),
  };
}
