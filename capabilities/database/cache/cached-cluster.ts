/**
 * A Cluster that reads from the watch-fed cache and writes through to the API, storing what each
 * write returns so the next read sees it (read-your-writes) and the write's watch echo is
 * recognised as nothing new (see changes.ts).
 *
 * Reads:
 * - a Database: the cache (fed by Pepr's Database watch); a miss asks the apiserver;
 * - a child kind whose informer has listed everything (synced): the cache only for `list` and for
 *   `get` with `missingIsAbsent`; a plain `get` that misses still asks the apiserver, because the
 *   informers only see objects with our label, and an object someone else created with one of
 *   our names must be seen (and left alone), not overwritten;
 * - a kind not synced yet: the apiserver.
 */
import { Database } from "../api/database";
import { DATABASE_KIND, KindKey, kindKeyOf } from "../api/kinds";
import {
  Cluster,
  DatabaseStatusPatch,
  DatabaseVersion,
  DeleteOptions,
  EventInput,
  KubeObject,
  ObjectRef,
} from "../cluster/cluster";
import { ObjectCache } from "./object-cache";

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
    if (db) this.store(DATABASE_KIND, db);
    return db;
  }

  async get(
    ref: ObjectRef,
    options?: { missingIsAbsent?: boolean },
  ): Promise<KubeObject | undefined> {
    const kind = kindKeyOf(ref);
    const cached = this.cache.get(kind, ref.namespace, ref.name);
    if (cached || (options?.missingIsAbsent && this.cache.isSynced(kind))) {
      this.reads.cacheHits++;
      return cached;
    }
    this.reads.apiGets++;
    const live = await this.api.get(ref);
    if (live && this.inScope(live)) this.store(kind, live);
    return live;
  }

  async list(
    ref: Pick<ObjectRef, "apiVersion" | "kind">,
    namespace: string,
    labels: Record<string, string>,
  ): Promise<KubeObject[]> {
    const kind = kindKeyOf(ref);
    if (this.cache.isSynced(kind)) {
      this.reads.cacheHits++;
      return this.cache.list(kind, namespace, labels);
    }
    this.reads.apiLists++;
    return this.api.list(ref, namespace, labels);
  }

  async apply(obj: KubeObject): Promise<KubeObject> {
    const applied = await this.api.apply(obj);
    this.storeResponse(obj, applied);
    return applied;
  }

  async delete(ref: ObjectRef, options?: DeleteOptions): Promise<void> {
    await this.api.delete(ref, options);
    // A pod lives on, terminating, until its containers stopped: fencing a primary waits for
    // exactly that, so only the informer's DELETED event may drop it from the cache.
    if (ref.kind !== "Pod") this.cache.remove(kindKeyOf(ref), ref.namespace, ref.name);
  }

  async removeAnnotation(db: DatabaseVersion, key: string): Promise<Database> {
    const patched = await this.api.removeAnnotation(db, key);
    this.store(DATABASE_KIND, patched);
    return patched;
  }

  async patchLabels(
    ref: ObjectRef,
    labels: Record<string, string | null>,
  ): Promise<KubeObject | void> {
    const patched = await this.api.patchLabels(ref, labels);
    if (patched) this.storeResponse(ref, patched);
    return patched;
  }

  async resizeClaim(ref: ObjectRef, size: string): Promise<KubeObject | void> {
    const patched = await this.api.resizeClaim(ref, size);
    if (patched) this.storeResponse(ref, patched);
    return patched;
  }

  async patchStatus(db: DatabaseVersion, status: DatabaseStatusPatch): Promise<Database> {
    const patched = await this.api.patchStatus(db, status);
    this.store(DATABASE_KIND, patched);
    return patched;
  }

  async removeFinalizer(db: Database, finalizer: string): Promise<void> {
    await this.api.removeFinalizer(db, finalizer);
  }

  async recordEvent(db: Database, event: EventInput): Promise<void> {
    await this.api.recordEvent(db, event);
  }

  /** Responses carry no apiVersion/kind in some KFC paths: take them from the request. */
  private storeResponse(
    request: Pick<KubeObject, "apiVersion" | "kind">,
    response: KubeObject,
  ): void {
    const obj = { ...response, apiVersion: request.apiVersion, kind: request.kind };
    if (this.inScope(obj)) this.store(kindKeyOf(obj), obj);
  }

  private store(kind: KindKey, obj: KubeObject): void {
    this.cache.upsert(kind, obj);
  }
}
