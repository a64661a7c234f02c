/**
 * The Cluster port (capabilities/database/cluster) in memory, for unit tests of reconcile and HA
 * logic (cluster behaviour is
 * tested against a real apiserver in test/integration). It keeps objects by ref, bumps
 * resourceVersion on every effective change, honours the resourceVersion and uid preconditions,
 * counts calls by verb, and hands out frozen copies, as the read cache does: a step that mutated
 * what it read throws.
 */
import { clone, equals, mergeDeepRight } from "ramda";
import { Database } from "../../capabilities/database/api/database";
import { deepFreeze } from "../../capabilities/database/lib/freeze";
import {
  Cluster,
  DatabaseStatusPatch,
  DatabaseVersion,
  DeleteOptions,
  EventInput,
  KubeObject,
  ObjectRef,
  OwnerReference,
  refOf,
} from "../../capabilities/database/cluster/cluster";
import {
  FIELD_MANAGER,
  createdFieldsEntry,
} from "../../capabilities/database/cluster/field-manager";

type Verb =
  | "get"
  | "list"
  | "apply"
  | "create"
  | "adoptCreatedFields"
  | "delete"
  | "patchLabels"
  | "resizeClaim"
  | "addOwnerReference"
  | "patchStatus"
  | "patchObjectStatus"
  | "removeFinalizer"
  | "removeAnnotation"
  | "event";

const keyOf = (ref: Pick<ObjectRef, "kind" | "namespace" | "name">): string =>
  `${ref.kind}/${ref.namespace}/${ref.name}`;

/** What the apiserver answers to a failed precondition. */
const conflict = (message: string) => ({ status: 409, data: { reason: "Conflict", message } });

/** A frozen copy: what readers get, like the cache's shared objects. */
const frozen = <T>(value: T): T => deepFreeze(clone(value));

export class FakeCluster implements Cluster {
  readonly objects = new Map<string, KubeObject>();
  readonly databases = new Map<string, Database>();
  readonly events: (EventInput & { object: string })[] = [];
  readonly calls: Record<Verb, number> = {
    get: 0,
    list: 0,
    apply: 0,
    create: 0,
    adoptCreatedFields: 0,
    delete: 0,
    patchLabels: 0,
    resizeClaim: 0,
    addOwnerReference: 0,
    patchStatus: 0,
    patchObjectStatus: 0,
    removeFinalizer: 0,
    removeAnnotation: 0,
    event: 0,
  };
  /** Makes the next call of a verb throw (once). */
  readonly failNext = new Map<Verb, unknown>();
  /** Makes the next call of a verb on a kind throw (once): keys like "create StatefulSet". */
  readonly failNextOn = new Map<`${Verb} ${string}`, unknown>();
  private version = 1;
  private uid = 1;

  addDatabase(db: Database): Database {
    const stored = clone(db);
    stored.metadata = {
      uid: `db-uid-${this.uid++}`,
      generation: 1,
      ...stored.metadata,
      resourceVersion: String(this.version++),
    };
    this.databases.set(`${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    return stored;
  }

  put(obj: KubeObject): void {
    this.objects.set(keyOf(refOf(obj)), {
      ...clone(obj),
      metadata: { ...obj.metadata, resourceVersion: String(this.version++) },
    });
  }

  find(kind: string, namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(keyOf({ kind, namespace, name }));
  }

  get mutatingCalls(): number {
    const c = this.calls;
    return (
      c.apply +
      c.create +
      c.adoptCreatedFields +
      c.delete +
      c.patchLabels +
      c.resizeClaim +
      c.addOwnerReference +
      c.patchStatus +
      c.patchObjectStatus +
      c.removeFinalizer +
      c.removeAnnotation
    );
  }

  private count(verb: Verb, kind?: string): void {
    this.calls[verb]++;
    const failure = this.failNext.get(verb);
    if (failure !== undefined) {
      this.failNext.delete(verb);
      throw failure;
    }
    const onKind = this.failNextOn.get(`${verb} ${kind}`);
    if (onKind !== undefined) {
      this.failNextOn.delete(`${verb} ${kind}`);
      throw onKind;
    }
  }

  async getDatabase(namespace: string, name: string): Promise<Database | undefined> {
    this.count("get");
    const db = this.databases.get(`${namespace}/${name}`);
    return db ? frozen(db) : undefined;
  }

  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    this.count("get");
    const obj = this.objects.get(keyOf(ref));
    return obj ? frozen(obj) : undefined;
  }

  async list(
    ref: Pick<ObjectRef, "apiVersion" | "kind">,
    namespace: string,
    labels: Record<string, string>,
  ): Promise<KubeObject[]> {
    this.count("list");
    if (ref.kind === "EndpointSlice") return this.endpointSlices(namespace, labels);
    return [...this.objects.values()]
      .filter(o => o.kind === ref.kind && o.metadata?.namespace === namespace)
      .filter(o => Object.entries(labels).every(([k, v]) => o.metadata?.labels?.[k] === v))
      .map(o => {
        // Like the real API: items of a List carry no apiVersion/kind (the Cluster adds them).
        const { apiVersion: _a, kind: _k, ...item } = clone(o);
        return deepFreeze({ ...item, apiVersion: ref.apiVersion, kind: ref.kind });
      });
  }

  /** The EndpointSlice controller has not caught up with the pods' labels yet. */
  endpointsBehind = false;

  /**
   * What the EndpointSlice controller would show: one slice per Service, listing the pods its
   * selector picks (ready or not, as the -rw Service publishes them).
   */
  private endpointSlices(namespace: string, labels: Record<string, string>): KubeObject[] {
    const serviceName = labels["kubernetes.io/service-name"];
    const inNamespace = (kind: string) =>
      [...this.objects.values()].filter(
        o => o.kind === kind && o.metadata?.namespace === namespace,
      );
    return inNamespace("Service")
      .filter(svc => serviceName === undefined || svc.metadata?.name === serviceName)
      .map(svc => {
        const selector = (svc.spec as { selector?: Record<string, string> } | undefined)?.selector;
        const picked = inNamespace("Pod").filter(
          pod =>
            !this.endpointsBehind &&
            selector !== undefined &&
            Object.entries(selector).every(([k, v]) => pod.metadata?.labels?.[k] === v),
        );
        return deepFreeze({
          apiVersion: "discovery.k8s.io/v1",
          kind: "EndpointSlice",
          metadata: {
            name: `${svc.metadata?.name}-slice`,
            namespace,
            labels: { "kubernetes.io/service-name": svc.metadata?.name ?? "" },
          },
          endpoints: picked.map(pod => ({
            targetRef: { kind: "Pod", name: pod.metadata?.name },
            conditions: { ready: true },
          })),
        });
      });
  }

  async apply(obj: KubeObject): Promise<KubeObject> {
    this.count("apply", obj.kind);
    const key = keyOf(refOf(obj));
    const live = this.objects.get(key);
    // The real apply would leave behind the created fields a new spec drops (field-manager.ts).
    if (live && createdFieldsEntry(live) !== undefined)
      throw new Error(`apply to ${key} before adoptCreatedFields: dropped fields would stay`);
    const merged = live ? (mergeDeepRight(live, obj) as KubeObject) : clone(obj);
    if (!live || !equals(live, merged)) {
      merged.metadata = { ...merged.metadata, resourceVersion: String(this.version++) };
      this.objects.set(key, merged);
    }
    return frozen(this.objects.get(key)!);
  }

  /** Like a POST: the object as given, its fields recorded as our manager's "Update". */
  async create(obj: KubeObject): Promise<KubeObject> {
    this.count("create", obj.kind);
    const key = keyOf(refOf(obj));
    if (this.objects.has(key))
      throw { status: 409, data: { reason: "AlreadyExists", message: `${key} already exists` } };
    const created = clone(obj);
    created.metadata = {
      ...created.metadata,
      uid: `uid-${this.uid++}`,
      resourceVersion: String(this.version++),
      managedFields: [{ manager: FIELD_MANAGER, operation: "Update" }],
    };
    this.objects.set(key, created);
    return frozen(created);
  }

  async adoptCreatedFields(ref: ObjectRef, entry: number): Promise<KubeObject> {
    this.count("adoptCreatedFields");
    const live = this.objects.get(keyOf(ref));
    const fields = live?.metadata?.managedFields?.[entry];
    if (!live || fields?.manager !== FIELD_MANAGER || fields.operation !== "Update")
      throw { status: 422, data: { reason: "Invalid", message: "the test operation failed" } };
    const managedFields = [...(live.metadata?.managedFields ?? [])];
    managedFields[entry] = { ...fields, operation: "Apply" };
    const adopted = {
      ...live,
      metadata: { ...live.metadata, managedFields, resourceVersion: String(this.version++) },
    };
    this.objects.set(keyOf(ref), adopted);
    return frozen(adopted);
  }

  /** Deletions as asked for, so tests can check grace periods. */
  readonly deletions: { ref: string; gracePeriodSeconds?: number; orphan?: boolean }[] = [];

  async delete(ref: ObjectRef, options?: DeleteOptions): Promise<void> {
    this.count("delete");
    const live = this.objects.get(keyOf(ref));
    if (options?.uid && live && live.metadata?.uid !== options.uid) return; // a successor stays
    this.deletions.push({
      ref: keyOf(ref),
      gracePeriodSeconds: options?.gracePeriodSeconds,
      ...(options?.orphan ? { orphan: true } : {}),
    });
    this.objects.delete(keyOf(ref));
  }

  async removeAnnotation(db: DatabaseVersion, key: string): Promise<Database> {
    this.count("removeAnnotation");
    const stored = this.databases.get(`${db.namespace}/${db.name}`);
    if (!stored) throw { status: 404, data: { message: "not found" } };
    if (db.resourceVersion && db.resourceVersion !== stored.metadata?.resourceVersion)
      throw conflict(`the object has been modified (${db.resourceVersion} is stale)`);
    const { [key]: _removed, ...annotations } = stored.metadata?.annotations ?? {};
    stored.metadata = { ...stored.metadata, annotations, resourceVersion: String(this.version++) };
    return frozen(stored);
  }

  async patchLabels(ref: ObjectRef, labels: Record<string, string | null>): Promise<KubeObject> {
    this.count("patchLabels");
    const obj = this.objects.get(keyOf(ref));
    if (!obj) throw { status: 404, data: { message: "not found" } };
    const next = { ...obj.metadata?.labels } as Record<string, string>;
    for (const [k, v] of Object.entries(labels)) {
      if (v === null) delete next[k];
      else next[k] = v;
    }
    obj.metadata = { ...obj.metadata, labels: next, resourceVersion: String(this.version++) };
    return frozen(obj);
  }

  async resizeClaim(ref: ObjectRef, size: string): Promise<KubeObject> {
    this.count("resizeClaim");
    const obj = this.objects.get(keyOf(ref));
    if (!obj) throw { status: 404, data: { message: "not found" } };
    const resized = mergeDeepRight(obj, { spec: { resources: { requests: { storage: size } } } });
    this.objects.set(keyOf(ref), resized as KubeObject);
    return frozen(resized as KubeObject);
  }

  async addOwnerReference(ref: ObjectRef, owner: OwnerReference): Promise<KubeObject> {
    this.count("addOwnerReference");
    const obj = this.objects.get(keyOf(ref));
    if (!obj) throw { status: 404, data: { message: "not found" } };
    // Merged by uid, as the apiserver's strategic merge does.
    const others = (obj.metadata?.ownerReferences ?? []).filter(r => r.uid !== owner.uid);
    const next: KubeObject = {
      ...obj,
      metadata: {
        ...obj.metadata,
        ownerReferences: [...others, owner],
        resourceVersion: String(this.version++),
      },
    };
    this.objects.set(keyOf(ref), next);
    return frozen(next);
  }

  async patchObjectStatus(ref: ObjectRef, status: Record<string, unknown>): Promise<KubeObject> {
    this.count("patchObjectStatus");
    const obj = this.objects.get(keyOf(ref));
    if (!obj) throw { status: 404, data: { message: "not found" } };
    const next = mergeDeepRight(obj, { status }) as KubeObject;
    next.metadata = { ...next.metadata, resourceVersion: String(this.version++) };
    this.objects.set(keyOf(ref), next);
    return frozen(next);
  }

  async patchStatus(db: DatabaseVersion, status: DatabaseStatusPatch): Promise<Database> {
    this.count("patchStatus");
    const stored = this.databases.get(`${db.namespace}/${db.name}`);
    if (!stored) throw { status: 404, data: { message: "not found" } };
    if (db.resourceVersion && db.resourceVersion !== stored.metadata?.resourceVersion)
      throw conflict(`the object has been modified (${db.resourceVersion} is stale)`);
    const next: Record<string, unknown> = { ...stored.status };
    for (const [k, v] of Object.entries(status)) {
      if (v === null) delete next[k];
      else next[k] = clone(v);
    }
    stored.status = next as Database["status"];
    stored.metadata = { ...stored.metadata, resourceVersion: String(this.version++) };
    return frozen(stored);
  }

  async removeFinalizer(db: Database, finalizer: string): Promise<void> {
    this.count("removeFinalizer");
    const key = `${db.metadata?.namespace}/${db.metadata?.name}`;
    const stored = this.databases.get(key);
    if (!stored?.metadata) return;
    stored.metadata.finalizers = (stored.metadata.finalizers ?? []).filter(f => f !== finalizer);
    if (stored.metadata.deletionTimestamp && stored.metadata.finalizers.length === 0)
      this.databases.delete(key);
  }

  async recordEvent(db: Database, event: EventInput): Promise<void> {
    this.count("event");
    this.events.push({ ...event, object: `${db.metadata?.namespace}/${db.metadata?.name}` });
  }
}
