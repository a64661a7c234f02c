/**
 * What the pod of every Job pgkeeper runs (a backup, a major upgrade's steps) has: one attempt
 * per pod, no Service links, the Database's ServiceAccount without an API token (these pods never
 * talk to the Kubernetes API), its pull Secrets, and the instances' hardened security context.
 */
import type { V1PodSpec } from "@kubernetes/client-node";
import { imagePullSecrets } from "./image-pull";
import { BuildInput, namesOf } from "./meta";
import { podSecurityContext } from "./security";

export const jobPodBasics = (
  input: BuildInput,
): Pick<
  V1PodSpec,
  | "restartPolicy"
  | "enableServiceLinks"
  | "serviceAccountName"
  | "automountServiceAccountToken"
  | "imagePullSecrets"
  | "securityContext"
> => ({
  restartPolicy: "Never",
  enableServiceLinks: false,
  serviceAccountName: namesOf(input).serviceAccount,
  automountServiceAccountToken: false,
  ...imagePullSecrets(input.spec),
  securityContext: podSecurityContext(),
});
