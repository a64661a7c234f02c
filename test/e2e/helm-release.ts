/**
 * pgkeeper's Helm chart (dist/pgkeeper-helm) installed with real helm in the local cluster, as a
 * platform team installs it: the chart `npm run build` generated (built here only when missing),
 * helm built once and cached (hack/helm-chart/helm.sh), images from the cluster's registry.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { env } from "../integration/harness/env";
import { kubectl } from "../integration/harness/kubectl";
import { OPERATOR_NAMESPACE, run, runLogged } from "./installed-operator";
import { imageRepository } from "./registry";

export const CHART = join(env.repo, "dist", "pgkeeper-helm");
export const RELEASE = "pgkeeper";

/** The chart's values for the local cluster: images from its registry. */
export const LOCAL_VALUES = (): string[] => [
  ...["--set", `image.repository=${imageRepository()}/controller`, "--set", "image.tag=dev"],
  ...["--set", `postgres.imageRepository=${imageRepository()}`],
];

/**
 * The helm binary, and the chart the tier's build wrote (hack/test-e2e.sh has checked it), built
 * if missing (a file run alone on a fresh checkout).
 */
export function prepareHelm(): string {
  if (!existsSync(join(CHART, "Chart.yaml"))) {
    run("bash", ["hack/build.sh"], 600_000, "helm-build");
  }
  const built = runLogged("bash", ["hack/helm-chart/helm.sh"], 1_200_000, "helm-binary");
  if (built.status !== 0) throw new Error(`hack/helm-chart/helm.sh failed:\n${built.output}`);
  return built.output.trim().split("\n").at(-1) ?? "";
}

/** `helm <args>` against the local cluster; throws with the output's end on failure. */
export const helmRun = (helm: string, args: string[], label: string): void =>
  run(helm, [...args, "--kubeconfig", env.kubeconfig], 600_000, label);

/** Uninstalls the release and removes its namespace, so the next suite starts without it. */
export function uninstall(helm: string, label: string): void {
  runLogged(
    helm,
    ["uninstall", RELEASE, "-n", OPERATOR_NAMESPACE, "--wait", "--kubeconfig", env.kubeconfig],
    180_000,
    label,
  );
  kubectl(["delete", "namespace", OPERATOR_NAMESPACE, "--wait=true", "--timeout=120s"]);
}
