/**
 * A Cluster that reads from the watch-fed cache and writes through to the API, storing what each
 * write returns so the next read sees it (read-your-writes) and the write's watch echo is
 * recognised as nothing new (see changes.ts).
 *
 * Reads:
 * - a Database: the cache (fed by the Database informer); a miss asks the apiserver;
 * - a child kind whose informer has listed everything (synced): the cache only for `list` and for
 *   `get` with `missingIsAbsent`; a plain `get` that misses still asks the apiserver, because the
 *   informers only see objects with our label, and an object someone else created with one of
 *   our names must be seen (and left alone), not overwritten;
 * - a kind not synced yet: the apiserver.
 */
import { Database } from "../api/database";
import { API_VERSION, KIND } from "../api/identity";
import { DATABASE_KIND, kindKeyOf } from "../api/kinds";
import {
  Cluster,
  DatabaseStatusPatch,
  DatabaseVersion,
  DeleteOptions,
  EventInput,
  KubeObject,
  ObjectRef,
  OwnerReference,
} from "../cluster/cluster";
import { ObjectCache } from "./object-cache";

const DATABASE_REF = { apiVersion: API_VERSION, kind: KIND };

export interface ReadCounts {
  cacheHits: number;
  apiGets: number;
  apiLists: number;
}

export class CachedCluster implements Cluster {
  /** Reads served, for benchmarks and logs. */
  readonly reads: ReadCounts = { cacheHits: 0, apiGets: 0, apiLists: 0 };

  /**
   * @param api the real API
   * @param cache shared with the watches that feed it
   * @param inScope whether an object belongs in the cache (our informers' label selector); an
   *   object outside it would never be updated or removed by a watch, so it is never stored
   */
  constructor(
    private readonly api: Cluster,
    readonly cache: ObjectCache,
    private readonly inScope: (obj: KubeObject) => boolean,
  ) {}

  async getDatabase(namespace: string, name: string): Promise<Database | undefined> {
    const cached = this.cache.get(DATABASE_KIND, namespace, name);
    if (cached) {
      this.reads.cacheHits++;
      return cached as Database;
    }
    this.reads.apiGets++;
    const db = await this.api.getDatabase(namespace, name);
    if (db) this.cache.upsert(DATABASE_KIND, db);
    return db;
  }

  async get(
    ref: ObjectRef,
    options?: { missingIsAbsent?: boolean },
  ): Promise<KubeObject | undefined> {
    const kind = kindKeyOf(ref);
    const cached = this.cache.get(kind, ref.namespace, ref.name);
    if (cached || (options?.missingIsAbsent && this.cache.isSynced(kind, ref.namespace))) {
      this.reads.cacheHits++;
      return cached;
    }
    this.reads.apiGets++;
    const live = await this.api.get(ref);
    if (live && this.inScope(live)) this.cache.upsert(kind, live);
    return live;
  }

  async list(
    ref: Pick<ObjectRef, "apiVersion" | "kind">,
    namespace: string,
    labels: Record<string, string>,
  ): Promise<KubeObject[]> {
    const kind = kindKeyOf(ref);
    if (this.cache.isSynced(kind, namespace)) {
      this.reads.cacheHits++;
      return this.cache.list(kind, namespace, labels);
    }
    this.reads.apiLists++;
    return this.api.list(ref, namespace, labels);
  }

  // Writes go through to the API; what they return is stored (read-your-writes).
  apply = (obj: KubeObject): Promise<KubeObject> => this.keep(obj, this.api.apply(obj));
  create = (obj: KubeObject): Promise<KubeObject> => this.keep(obj, this.api.create(obj));
  adoptCreatedFields = (ref: ObjectRef, entry: number): Promise<KubeObject> =>
    this.keep(ref, this.api.adoptCreatedFields(ref, entry));
  patchLabels = (ref: ObjectRef, labels: Record<string, string | null>): Promise<KubeObject> =>
    this.keep(ref, this.api.patchLabels(ref, labels));
  resizeClaim = (ref: ObjectRef, size: string): Promise<KubeObject> =>
    this.keep(ref, this.api.resizeClaim(ref, size));
  addOwnerReference = (ref: ObjectRef, owner: OwnerReference): Promise<KubeObject> =>
    this.keep(ref, this.api.addOwnerReference(ref, owner));
  patchObjectStatus = (ref: ObjectRef, status: Record<string, unknown>): Promise<KubeObject> =>
    this.keep(ref, this.api.patchObjectStatus(ref, status));
  patchStatus = (db: DatabaseVersion, status: DatabaseStatusPatch): Promise<Database> =>
    this.keep(DATABASE_REF, this.api.patchStatus(db, status));
  removeAnnotation = (db: DatabaseVersion, key: string): Promise<Database> =>
    this.keep(DATABASE_REF, this.api.removeAnnotation(db, key));
  removeFinalizer = (db: Database, finalizer: string): Promise<void> =>
    this.api.removeFinalizer(db, finalizer);
  recordEvent = (db: Database, event: EventInput): Promise<void> => this.api.recordEvent(db, event);

  async delete(ref: ObjectRef, options?: DeleteOptions): Promise<void> {
    await this.api.delete(ref, options);
    // A pod lives on, terminating, until its containers stopped: fencing a primary waits for
    // exactly that, so only the informer's DELETED event may drop it from the cache.
    if (ref.kind !== "Pod") this.cache.remove(kindKeyOf(ref), ref.namespace, ref.name);
  }

  /** Stores a write's response; some responses carry no apiVersion/kind: the request's hold. */
  private async keep<T extends KubeObject>(
    request: Pick<KubeObject, "apiVersion" | "kind">,
    response: Promise<T>,
  ): Promise<T> {
    const obj = await response;
    const typed = { ...obj, apiVersion: request.apiVersion, kind: request.kind };
    if (this.inScope(typed) || kindKeyOf(typed) === DATABASE_KIND)
      this.cache.upsert(kindKeyOf(typed), typed);
    return obj;
  }
}
