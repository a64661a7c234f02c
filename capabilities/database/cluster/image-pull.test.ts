import type { KubeObject } from "./objects";
import { imagePullProblem } from "./image-pull";

describe("imagePullProblem", () => {
  const pod = (status: object): KubeObject => ({ apiVersion: "v1", kind: "Pod", status });
  const waiting = (name: string, reason: string, message?: string) => ({
    name,
    image: `img-of-${name}`,
    state: { waiting: { reason, ...(message ? { message } : {}) } },
  });

  it.each<[string, object, object | undefined]>([
    ["no status yet", {}, undefined],
    ["running", { containerStatuses: [{ name: "postgres", state: { running: {} } }] }, undefined],
    [
      "starting (not an image problem)",
      { containerStatuses: [waiting("postgres", "ContainerCreating")] },
      undefined,
    ],
    [
      "back-off pulling",
      { containerStatuses: [waiting("postgres", "ImagePullBackOff", "Back-off pulling image")] },
      {
        container: "postgres",
        image: "img-of-postgres",
        reason: "ImagePullBackOff",
        message: "Back-off pulling image",
      },
    ],
    [
      "an init container first",
      {
        initContainerStatuses: [waiting("init", "ErrImagePull")],
        containerStatuses: [waiting("postgres", "PodInitializing")],
      },
      { container: "init", image: "img-of-init", reason: "ErrImagePull" },
    ],
    [
      "an invalid reference",
      { containerStatuses: [waiting("pgbackrest", "InvalidImageName", "bad ref")] },
      {
        container: "pgbackrest",
        image: "img-of-pgbackrest",
        reason: "InvalidImageName",
        message: "bad ref",
      },
    ],
  ])("%s", (_, status, expected) => {
    expect(imagePullProblem(pod(status))).toEqual(expected);
  });
});
