/**
 * The Cluster interface on kubernetes-fluent-client: server-side apply (field manager "pepr",
 * forced: we own the fields we set), merge patches for labels and status, Events as core/v1.
 */
import { K8s, kind } from "pepr";
import { GenericClass } from "kubernetes-fluent-client";
import { Database } from "../api/database";
import { isNotFound } from "../lib/errors";
import { readRuntimeConfig } from "../lib/runtime-config";
import { Cluster, DatabaseStatusPatch, EventInput, KubeObject, ObjectRef } from "./cluster";

const MODELS: Record<string, GenericClass> = {
  "v1/Secret": kind.Secret,
  "v1/ConfigMap": kind.ConfigMap,
  "v1/Service": kind.Service,
  "v1/Pod": kind.Pod,
  "v1/PersistentVolumeClaim": kind.PersistentVolumeClaim,
  "apps/v1/StatefulSet": kind.StatefulSet,
  "policy/v1/PodDisruptionBudget": kind.PodDisruptionBudget,
  "batch/v1/CronJob": kind.CronJob,
};

function modelOf(ref: Pick<ObjectRef, "apiVersion" | "kind">): GenericClass {
  const model = MODELS[`${ref.apiVersion}/${ref.kind}`];
  if (!model) throw new Error(`pgkeeper does not manage ${ref.apiVersion} ${ref.kind}`);
  return model;
}

const pathOf = (ref: ObjectRef): string => {
  const [group, version] = ref.apiVersion.includes("/")
    ? ref.apiVersion.split("/")
    : ["", ref.apiVersion];
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const plural = `${ref.kind.toLowerCase()}s`;
  return `${base}/namespaces/${ref.namespace}/${plural}/${ref.name}`;
};

let identity: string | undefined;
/** This process's leader-election identity (the pod name in Kubernetes), named in its Events. */
const reportingInstance = (): string => (identity ??= readRuntimeConfig().leaderElection.identity);

export const kfcCluster: Cluster = {
  async getDatabase(namespace, name) {
    try {
      return await K8s(Database).InNamespace(namespace).Get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  },

  async get(ref) {
    try {
      return (await K8s(modelOf(ref)).InNamespace(ref.namespace).Get(ref.name)) as KubeObject;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  },

  async list(ref, namespace, labels) {
    let query = K8s(modelOf(ref)).InNamespace(namespace);
    for (const [key, value] of Object.entries(labels)) query = query.WithLabel(key, value);
    const list = await query.Get();
    // Items of a List carry no apiVersion/kind; stamp them so refOf() works on them.
    return (list.items as KubeObject[]).map(item => ({
      ...item,
      apiVersion: ref.apiVersion,
      kind: ref.kind,
    }));
  },

  async apply(obj) {
    return (await K8s(modelOf(obj as ObjectRef)).Apply(obj as never, {
      force: true,
    })) as KubeObject;
  },

  async delete(ref, options) {
    const query = [
      ...(options?.orphan ? ["propagationPolicy=Orphan"] : []),
      ...(options?.gracePeriodSeconds !== undefined
        ? [`gracePeriodSeconds=${options.gracePeriodSeconds}`]
        : []),
    ];
    if (query.length === 0) {
      await K8s(modelOf(ref)).InNamespace(ref.namespace).Delete(ref.name);
      return;
    }
    try {
      await K8s(modelOf(ref)).Raw(`${pathOf(ref)}?${query.join("&")}`, "DELETE" as never);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  },

  async removeAnnotation(db, key) {
    const path = `/metadata/annotations/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const value = db.metadata?.annotations?.[key];
    if (value === undefined) return;
    try {
      // test first: never drop a newer request written meanwhile.
      await K8s(Database, { namespace: db.metadata?.namespace, name: db.metadata?.name }).Patch([
        { op: "test", path, value },
        { op: "remove", path },
      ]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  },

  async patchLabels(ref, labels) {
    const ops = Object.entries(labels).map(([key, value]) => {
      const path = `/metadata/labels/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      return value === null ? { op: "remove" as const, path } : { op: "add" as const, path, value };
    });
    return (await K8s(modelOf(ref), { namespace: ref.namespace, name: ref.name }).Patch(
      ops,
    )) as KubeObject;
  },

  async resizeClaim(ref, size) {
    return (await K8s(modelOf(ref), { namespace: ref.namespace, name: ref.name }).Patch([
      { op: "replace", path: "/spec/resources/requests/storage", value: size },
    ])) as KubeObject;
  },

  async patchStatus(db: Database, status: DatabaseStatusPatch) {
    return K8s(Database).PatchStatus({
      metadata: { name: db.metadata?.name, namespace: db.metadata?.namespace },
      status: status as never,
    });
  },

  async removeFinalizer(db, finalizer) {
    const current = db.metadata?.finalizers ?? [];
    if (!current.includes(finalizer)) return;
    try {
      // The test op makes this a compare-and-swap: never drop a finalizer someone added meanwhile.
      await K8s(Database, { namespace: db.metadata?.namespace, name: db.metadata?.name }).Patch([
        { op: "test", path: "/metadata/finalizers", value: current },
        {
          op: "replace",
          path: "/metadata/finalizers",
          value: current.filter(f => f !== finalizer),
        },
      ]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  },

  async recordEvent(db: Database, event: EventInput) {
    const now = new Date();
    await K8s(kind.CoreEvent).Create({
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${db.metadata?.name}.`, namespace: db.metadata?.namespace },
      involvedObject: {
        apiVersion: db.apiVersion ?? "pgkeeper.dev/v1alpha1",
        kind: "Database",
        name: db.metadata?.name,
        namespace: db.metadata?.namespace,
        uid: db.metadata?.uid,
        resourceVersion: db.metadata?.resourceVersion,
      },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: "pgkeeper", host: reportingInstance() },
      reportingComponent: "pgkeeper.dev/operator",
      reportingInstance: reportingInstance(),
      firstTimestamp: now,
      lastTimestamp: now,
      eventTime: undefined,
      count: 1,
    } as never);
  },
};
