import { deepFreeze } from "../lib/freeze";
import { KubeObject } from "../cluster/cluster";
import { slim } from "./slim";
import { SHARED_TEXT_MIN_LENGTH, SharedTexts } from "./shared-texts";

const pod = (spec: unknown): KubeObject =>
  deepFreeze({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "db-0", namespace: "team", labels: { a: "b" } },
    spec,
    status: { podIP: "10.0.0.1", conditions: [{ type: "Ready", status: "True" }] },
  } as KubeObject);

describe("slim: what the cache keeps of an object", () => {
  it.each<[string, KubeObject, unknown]>([
    [
      "a Pod keeps its volumes' names, its node and its containers' images, nothing else of its spec",
      pod({
        nodeName: "n1",
        containers: [{ name: "postgres", image: "x", env: [{ name: "A", value: "1" }] }],
        volumes: [{ name: "tls", secret: { secretName: "db-tls" } }, { name: "data" }],
      }),
      {
        nodeName: "n1",
        volumes: [{ name: "tls" }, { name: "data" }],
        containers: [{ name: "postgres", image: "x" }],
      },
    ],
    ["a Pod not scheduled yet", pod({ containers: [] }), {}],
  ])("%s", (_, obj, spec) => {
    const kept = slim(obj);
    expect(kept.spec).toEqual(spec);
    expect(kept.status).toEqual(obj.status);
    expect(kept.metadata).toEqual(obj.metadata);
  });

  it("a Pod's container statuses keep what is read, not the kubelet's mounts, container ids and resources", () => {
    const state = { terminated: { exitCode: 137, finishedAt: "t", message: "m" } };
    const status = {
      phase: "Running",
      podIP: "10.0.0.1",
      containerStatuses: [
        {
          name: "postgres",
          image: "postgres:17",
          imageID: "sha256:abc",
          containerID: "containerd://1",
          ready: false,
          started: false,
          restartCount: 2,
          state,
          lastState: { terminated: state.terminated },
          volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
          resources: { requests: { cpu: "1" } },
          user: { linux: { uid: 999, gid: 999 } },
        },
      ],
      initContainerStatuses: [{ name: "init", image: "x", imageID: "y", state: {} }],
    };
    const kept = slim({ ...pod({ containers: [] }), status });
    expect(kept.status).toEqual({
      phase: "Running",
      podIP: "10.0.0.1",
      containerStatuses: [
        {
          name: "postgres",
          image: "postgres:17",
          imageID: "sha256:abc",
          ready: false,
          started: false,
          restartCount: 2,
          state,
          lastState: { terminated: state.terminated },
        },
      ],
      initContainerStatuses: [{ name: "init", image: "x", imageID: "y", state: {} }],
    });
  });

  it("other kinds keep their spec whole (drift is checked against it)", () => {
    const sts = { apiVersion: "apps/v1", kind: "StatefulSet", spec: { replicas: 3 } };
    expect(slim(sts)).toBe(sts);
  });

  it("managedFields keep who wrote with which operation", () => {
    const cm: KubeObject = {
      kind: "ConfigMap",
      metadata: {
        name: "c",
        managedFields: [{ manager: "pepr", operation: "Apply", fieldsV1: {}, time: "t" }],
      },
    };
    expect(slim(cm).metadata?.managedFields).toEqual([{ manager: "pepr", operation: "Apply" }]);
    expect(cm.metadata?.managedFields?.[0].fieldsV1).toEqual({}); // the caller's object untouched
  });

  it("a ConfigMap's long values go through the shared texts; other kinds' data does not", () => {
    const texts = new SharedTexts();
    const script = "#!/bin/sh\n".padEnd(SHARED_TEXT_MIN_LENGTH, "#");
    const cm: KubeObject = { kind: "ConfigMap", metadata: { name: "c" }, data: { "a.sh": script } };
    expect(slim(cm, texts)).toEqual(cm);
    const secret: KubeObject = { kind: "Secret", metadata: { name: "s" }, data: { key: script } };
    expect(slim(secret, texts)).toBe(secret);
    expect(texts.size).toBe(1);
  });
});
