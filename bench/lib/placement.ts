/**
 * Where a bench's operator runs, at its defaults (no test tuning):
 *   cluster  installed by `pepr deploy` alone, as users install it: the watcher and admission
 *            Deployments (the full-size runs; needs the node tier and the images);
 *   dev      `pepr dev` on the host, as the tiers run it (the smoke runs: nothing to deploy).
 * Either way the settings are read back from what it was started with, so the figures can say
 * which they were measured with.
 */
import { readConfig, DEFAULT_CONFIG, OperatorConfig } from "../../capabilities/database/lib/config";
import { get } from "../../test/integration/harness/kubectl";
import { Operator, removeWebhooks } from "../../test/integration/harness/operator";
import {
  OPERATOR_NAMESPACE,
  awaitLeader,
  awaitRollout,
  controllerImage,
  deploy,
  removeDeployed,
} from "../../test/e2e/installed-operator";
import { imageRepository } from "../../test/e2e/registry";
import { stopOperator } from "./operator";

export type Placement = "cluster" | "dev";

export function parsePlacement(text: string): Placement {
  if (text === "cluster" || text === "dev") return text;
  throw new Error(`OPERATOR=${text}: one of cluster (pepr deploy), dev (pepr dev)`);
}

export interface RunningOperator {
  config: OperatorConfig;
  stop: () => Promise<void>;
}

/** The watcher Deployment's environment, as the apiserver has it. */
function watcherEnv(): Record<string, string> {
  const d = get("deployment", OPERATOR_NAMESPACE, "pepr-pgkeeper-watcher");
  const spec = d?.spec as
    | { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } }
    | undefined;
  const vars = spec?.template.spec.containers[0].env ?? [];
  return Object.fromEntries(vars.map(v => [v.name, v.value ?? ""]));
}

/** Starts the operator; `name` labels its logs, `env` is added under `pepr dev`. */
export async function startOperator(
  placement: Placement,
  name: string,
  env: Record<string, string> = {},
): Promise<RunningOperator> {
  if (placement === "cluster") {
    await deploy(controllerImage(imageRepository()), {}, name);
    await awaitRollout();
    await awaitLeader();
    return { config: readConfig(watcherEnv()), stop: async () => removeDeployed() };
  }
  // The tiers' test tuning (faster resyncs and backoff) put back to the defaults.
  const defaults = {
    PGKEEPER_RESYNC_SECONDS: String(DEFAULT_CONFIG.resyncSeconds),
    PGKEEPER_BACKOFF_BASE_MS: String(DEFAULT_CONFIG.backoffBaseMs),
    PGKEEPER_BACKOFF_CAP_MS: String(DEFAULT_CONFIG.backoffCapMs),
  };
  const operator = new Operator(name, { ...defaults, ...env });
  await operator.start();
  return {
    config: readConfig({ ...process.env, ...defaults, ...env }),
    stop: async () => {
      await stopOperator(operator);
      removeWebhooks();
    },
  };
}
