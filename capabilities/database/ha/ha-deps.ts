/**
 * The HA machinery of a watcher process: the instance monitor over the real SQL edge, wired to
 * wake the controller, and the failover metric. Built by the runtime (the composition root).
 */
import { splitDatabaseKey } from "../api/names";
import { OperatorConfig } from "../lib/config";
import { POSTGRES_PORT } from "../specs/layout";
import { HaDeps } from "./ha-step";
import * as instanceSql from "./instance-sql";
import { HaMemory } from "./memory";
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
      const { namespace, name } = splitDatabaseKey(key);
      wake(namespace, name);
    },
  });
  return {
    monitor,
    sql: instanceSql,
    failureThreshold: config.probeFailureThreshold,
    memory: new HaMemory(),
    ...(onFailover ? { onFailover } : {}),
  };
}
