/**
 * How the instance and backup pods get their image: spec.imagePullSecrets in the pod itself (not
 * on the ServiceAccount, whose Secrets reach only pods created after them: a pod stuck pulling
 * would stay stuck when the Secrets are corrected, while a changed template replaces it).
 */
import type { V1PodSpec } from "@kubernetes/client-node";
import type { ResolvedSpec } from "../api/defaults";

export const imagePullSecrets = (spec: ResolvedSpec): Pick<V1PodSpec, "imagePullSecrets"> =>
  spec.imagePullSecrets && spec.imagePullSecrets.length > 0
    ? { imagePullSecrets: spec.imagePullSecrets.map(({ name }) => ({ name })) }
    : {};
