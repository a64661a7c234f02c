/**
 * The Cluster interface on the apiserver (through lib/kube-api's shared connection pool):
 * server-side apply (cluster/field-manager.ts, forced: we own the fields we set), a create where
 * nothing of the name may exist yet, JSON patches for
 * labels, annotations and finalizers, a merge patch for status, Events as core/v1.
 */
import { Database } from "../api/database";
import { MANAGED_KINDS, kindKeyOf } from "../api/kinds";
import { Log } from "pepr";
import { errorMessage, isConflict, isNotFound } from "../lib/errors";
import { KubeRequest, kubeRequest } from "../lib/kube-api";
import { readRuntimeConfig } from "../lib/runtime-config";
import {
  Cluster,
  DatabaseVersion,
  DeleteOptions,
  EventInput,
  KubeObject,
  ObjectRef,
} from "./cluster";
import { FIELD_MANAGER } from "./field-manager";

type Kind = Pick<ObjectRef, "apiVersion" | "kind">;

/** A managed kind's resource name: English plurals, as Kubernetes spells them (NetworkPolicy → networkpolicies). */
const resourceOf = (kind: string): string => {
  const lower = kind.toLowerCase();
  return /[^aeiou]y$/.test(lower) ? `${lower.slice(0, -1)}ies` : `${lower}s`;
};

/**
 * `/api/v1/namespaces/ns/secrets` or `/apis/apps/v1/namespaces/ns/statefulsets`; without a
 * namespace, the collection in every namespace (`/api/v1/secrets`).
 */
export function collectionPath(ref: Kind, namespace?: string): string {
  if (!MANAGED_KINDS.has(kindKeyOf(ref)))
    throw new Error(`pgkeeper does not manage ${ref.apiVersion} ${ref.kind}`);
  const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const where = namespace === undefined ? "" : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${base}${where}/${resourceOf(ref.kind)}`;
}

export const objectPath = (ref: ObjectRef): string =>
  `${collectionPath(ref, ref.namespace)}/${encodeURIComponent(ref.name)}`;

const DATABASE = { apiVersion: "pgkeeper.dev/v1alpha1", kind: "Database" };

const databasePath = (db: Database): string =>
  objectPath({
    ...DATABASE,
    namespace: db.metadata?.namespace ?? "",
    name: db.metadata?.name ?? "",
  });

const versionedDatabasePath = ({ namespace, name }: DatabaseVersion): string =>
  objectPath({ ...DATABASE, namespace, name });

/** JSON Pointer escaping of one path segment (RFC 6901). */
const pointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

const JSON_PATCH = "application/json-patch+json";

async function ignoreNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

let identity: string | undefined;
/** This process's leader-election identity (the pod name in Kubernetes), named in its Events. */
const reportingInstance = (): string => (identity ??= readRuntimeConfig().leaderElection.identity);

const labelSelector = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");

/** metav1.DeleteOptions for the request body. */
export const deleteOptions = (options: DeleteOptions = {}): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "DeleteOptions",
  ...(options.orphan ? { propagationPolicy: "Orphan" } : {}),
  ...(options.background ? { propagationPolicy: "Background" } : {}),
  ...(options.gracePeriodSeconds !== undefined
    ? { gracePeriodSeconds: options.gracePeriodSeconds }
    : {}),
  ...(options.uid ? { preconditions: { uid: options.uid } } : {}),
});

const eventNamespace = (db: Database): string => db.metadata?.namespace ?? "";

/** A core/v1 Event about `db`, naming this process as its writer. */
function eventOf(db: Database, event: EventInput): Record<string, unknown> {
  const now = new Date().toISOString();
  const namespace = eventNamespace(db);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { generateName: `${db.metadata?.name}.`, namespace },
    involvedObject: {
      apiVersion: db.apiVersion ?? DATABASE.apiVersion,
      kind: "Database",
      name: db.metadata?.name,
      namespace,
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
    count: 1,
  };
}

const log = Log.child({ component: "api" });

/** The Cluster on `api` (the process-wide pool unless a test gives another). */
export function apiCluster(api: KubeRequest = kubeRequest): Cluster {
  return {
    getDatabase: (namespace, name) =>
      ignoreNotFound(api<Database>("GET", objectPath({ ...DATABASE, namespace, name }))),

    get: ref => ignoreNotFound(api<KubeObject>("GET", objectPath(ref))),

    async list(ref, namespace, labels) {
      const list = await api<{ items?: KubeObject[] }>("GET", collectionPath(ref, namespace), {
        query: { labelSelector: labelSelector(labels) || undefined },
      });
      // Items of a List carry no apiVersion/kind; stamp them so refOf() works on them.
      return (list.items ?? []).map(item => ({
        ...item,
        apiVersion: ref.apiVersion,
        kind: ref.kind,
      }));
    },

    apply(obj) {
      const ref = obj as ObjectRef;
      const namespace = obj.metadata?.namespace ?? "";
      const name = obj.metadata?.name ?? "";
      return api<KubeObject>("PATCH", objectPath({ ...ref, namespace, name }), {
        body: obj,
        contentType: "application/apply-patch+yaml", // JSON is YAML
        query: { fieldManager: FIELD_MANAGER, fieldValidation: "Strict", force: true },
      });
    },

    create(obj) {
      const ref = obj as ObjectRef;
      return api<KubeObject>("POST", collectionPath(ref, obj.metadata?.namespace ?? ""), {
        body: obj,
        query: { fieldManager: FIELD_MANAGER, fieldValidation: "Strict" },
      });
    },

    adoptCreatedFields(ref, entry) {
      const at = `/metadata/managedFields/${entry}`;
      // The tests make it a no-op-or-fail: never an entry that moved or changed hands meanwhile.
      return api<KubeObject>("PATCH", objectPath(ref), {
        body: [
          { op: "test", path: `${at}/manager`, value: FIELD_MANAGER },
          { op: "test", path: `${at}/operation`, value: "Update" },
          { op: "replace", path: `${at}/operation`, value: "Apply" },
        ],
        contentType: JSON_PATCH,
        query: { fieldManager: FIELD_MANAGER },
      });
    },

    async delete(ref, options) {
      try {
        // All options in one DeleteOptions body: with a body, the apiserver ignores the query
        // parameters (a grace period given there would silently become the pod's default).
        await api("DELETE", objectPath(ref), { body: deleteOptions(options) });
      } catch (err) {
        // Gone already; or, with a uid precondition, replaced by a successor that must stay.
        if (isNotFound(err) || (options?.uid && isConflict(err))) return;
        throw err;
      }
    },

    removeAnnotation(db, key) {
      // The resourceVersion test makes this a compare-and-swap on the whole object.
      return api<Database>("PATCH", versionedDatabasePath(db), {
        body: [
          ...(db.resourceVersion
            ? [{ op: "test", path: "/metadata/resourceVersion", value: db.resourceVersion }]
            : []),
          { op: "remove", path: `/metadata/annotations/${pointer(key)}` },
        ],
        contentType: JSON_PATCH,
      });
    },

    patchLabels(ref, labels) {
      // A merge patch: it works on an object with no labels at all (all removed by hand), and
      // removing a label that is not there is no error.
      return api<KubeObject>("PATCH", objectPath(ref), {
        body: { metadata: { labels } },
        contentType: "application/merge-patch+json",
      });
    },

    resizeClaim(ref, size) {
      return api<KubeObject>("PATCH", objectPath(ref), {
        body: [{ op: "replace", path: "/spec/resources/requests/storage", value: size }],
        contentType: JSON_PATCH,
      });
    },

    addOwnerReference(ref, owner) {
      // ownerReferences merge by uid in a strategic merge patch: the other owners stay.
      return api<KubeObject>("PATCH", objectPath(ref), {
        body: { metadata: { ownerReferences: [owner] } },
        contentType: "application/strategic-merge-patch+json",
      });
    },

    patchObjectStatus(ref, status) {
      return api<KubeObject>("PATCH", `${objectPath(ref)}/status`, {
        body: { status },
        contentType: "application/merge-patch+json",
      });
    },

    patchStatus(db, status) {
      // A resourceVersion in the patch is a precondition: the apiserver answers 409 Conflict when
      // the stored object is newer than the view this status was computed from.
      const metadata = db.resourceVersion ? { resourceVersion: db.resourceVersion } : undefined;
      return api<Database>("PATCH", `${versionedDatabasePath(db)}/status`, {
        body: { ...(metadata ? { metadata } : {}), status },
        contentType: "application/merge-patch+json",
      });
    },

    async removeFinalizer(db, finalizer) {
      const current = db.metadata?.finalizers ?? [];
      if (!current.includes(finalizer)) return;
      // The test op makes this a compare-and-swap: never drop a finalizer someone added meanwhile.
      await ignoreNotFound(
        api("PATCH", databasePath(db), {
          body: [
            { op: "test", path: "/metadata/finalizers", value: current },
            {
              op: "replace",
              path: "/metadata/finalizers",
              value: current.filter(f => f !== finalizer),
            },
          ],
          contentType: JSON_PATCH,
        }),
      );
    },

    async recordEvent(db: Database, event: EventInput) {
      const database = `${eventNamespace(db)}/${db.metadata?.name}`;
      log.info(
        { database, type: event.type, reason: event.reason, message: event.message },
        "Event",
      );
      try {
        await api("POST", `/api/v1/namespaces/${encodeURIComponent(eventNamespace(db))}/events`, {
          body: eventOf(db, event),
        });
      } catch (err) {
        // Events are optional: one refused (a namespace being deleted, a quota) never fails the
        // step that reported it.
        log.warn({ reason: event.reason, error: errorMessage(err) }, "Event not recorded");
      }
    },
  };
}
