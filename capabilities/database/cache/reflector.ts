/**
 * One list+watch of one kind (cluster-wide or in one namespace) that holds only the objects `keep`
 * accepts: the rest are dropped as they arrive, so another tenant's objects cost nothing but the
 * bytes of one list page or one event while they pass. (KFC's Watcher keeps every object it
 * delivers in a map of its own; the informers used to run on it.)
 *
 * The loop is client-go's reflector: list in pages, watch from the list's resourceVersion with
 * bookmarks, watch again from the last resourceVersion when the server ends the watch, list again
 * when it says the version is gone (410) and every `relistMs`. A failure waits, doubling from
 * `retryMs` up to `maxRetryMs`; `failureMax` failures in a row end the loop (`onGiveUp`).
 *
 * `revisit` lists one namespace's objects matching a selector and takes those `keep` now accepts:
 * what the watch dropped before their owner was known.
 */
import { KubeObject } from "../cluster/cluster";

export type Phase = "ADDED" | "MODIFIED" | "DELETED";

export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
}

export interface ListScope {
  /** One namespace (a revisit); the source's own scope otherwise. */
  namespace?: string;
  /** Label selector ANDed with the source's own. */
  selector?: string;
  continue?: string;
}

export interface StreamEvent {
  type: string;
  object: unknown;
}

/** Where a reflector reads: one kind, cluster-wide or in one namespace, label-selected. */
export interface ReflectorSource {
  list(scope: ListScope): Promise<ListPage>;
  watch(
    from: { resourceVersion: string; timeoutSeconds: number },
    signal: AbortSignal,
  ): AsyncIterable<StreamEvent>;
}

export interface ReflectorTimings {
  retryMs: number;
  maxRetryMs: number;
  relistMs: number;
  /** What each watch asks the server to end it after (client-go: 5 to 10 minutes). */
  watchSeconds: () => number;
  /** Consecutive failures that end the loop; undefined: never. */
  failureMax?: number;
}

export interface ReflectorOptions {
  source: ReflectorSource;
  keep: (obj: KubeObject) => boolean;
  /** A kept object added, changed, or gone (deleted, or no longer kept). */
  onEvent: (phase: Phase, obj: KubeObject) => void;
  /** Every complete list (the first makes the kind's cache answer misses). */
  onListed: () => void;
  onFailure: (err: unknown, failures: number) => void;
  onGiveUp: (err: unknown) => void;
  timings: ReflectorTimings;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** The apiserver's "too old resource version": list again. */
export class Gone extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Gone";
  }
}

const isGone = (err: unknown): boolean =>
  err instanceof Gone || (err as { status?: number } | undefined)?.status === 410;

const idOf = (obj: KubeObject): string =>
  `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;

const versionOf = (obj: KubeObject): string | undefined => obj.metadata?.resourceVersion;

/** An ERROR event's Status, as an error: 410 means list again. */
function statusError(status: { code?: number; message?: string } | undefined): Error {
  const text = `watch error ${status?.code ?? "?"}: ${status?.message ?? "no message"}`;
  return status?.code === 410 ? new Gone(text) : new Error(text);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/**
 * What the reflector remembers of an object it holds: enough to tell a change, to say it went,
 * and to name its owner then (the labels). Not the object: the cache keeps that (one copy).
 */
interface Held {
  uid?: string;
  version?: string;
  labels?: Record<string, string>;
  /** The list pass that last saw it (a relist drops what it did not see). */
  pass: number;
}

/** What a drop reports: the object's identity and labels, as it was last held. */
const gone = (id: string, held: Held): KubeObject => {
  const slash = id.indexOf("/");
  return {
    metadata: {
      namespace: id.slice(0, slash),
      name: id.slice(slash + 1),
      uid: held.uid,
      resourceVersion: held.version,
      labels: held.labels,
    },
  };
};

/** A watch that ended sooner than this, without an error, is followed by a pause. */
export const MIN_WATCH_MS = 1000;

export class Reflector {
  private readonly held = new Map<string, Held>();
  private readonly abort = new AbortController();
  private pass = 0;
  /** Where the next watch starts; undefined: list first. */
  private version: string | undefined;
  /** Deletions of objects not held, recorded while a revisit is listing (it must not resurrect them). */
  private tombstones: Set<string> | undefined;
  private revisits = 0;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly options: ReflectorOptions) {
    this.sleep = options.sleep ?? abortableSleep;
    this.now = options.now ?? Date.now;
  }

  /** Objects held now. */
  get size(): number {
    return this.held.size;
  }

  start(): Promise<void> {
    return this.run();
  }

  stop(): void {
    this.abort.abort();
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    const { timings, onFailure, onGiveUp, onListed } = this.options;
    let listedAt = 0;
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.version === undefined || this.now() - listedAt >= timings.relistMs) {
          this.version = await this.relist();
          listedAt = this.now();
          failures = 0;
          onListed();
        }
        const watchedAt = this.now();
        await this.watchFrom(this.version);
        failures = 0;
        // A watch the server ends at once (a kind being deleted, a proxy) must not become a loop
        // of requests that starves the process: wait as after a failure, without counting one.
        if (this.now() - watchedAt < MIN_WATCH_MS)
          await this.sleep(timings.retryMs, this.abort.signal);
      } catch (err) {
        if (this.stopped) return;
        if (isGone(err)) {
          this.version = undefined;
          continue;
        }
        failures++;
        onFailure(err, failures);
        if (timings.failureMax !== undefined && failures >= timings.failureMax) {
          onGiveUp(err);
          return;
        }
        const delay = Math.min(timings.retryMs * 2 ** (failures - 1), timings.maxRetryMs);
        await this.sleep(delay, this.abort.signal);
      }
    }
  }

  /** Lists everything in pages; what was held and is not listed any more is gone. */
  private async relist(): Promise<string> {
    const pass = ++this.pass;
    let page: ListPage | undefined;
    do {
      page = await this.options.source.list({ continue: page?.continue });
      if (this.stopped) return page.resourceVersion;
      for (const item of page.items) this.take(item, pass);
    } while (page.continue);
    for (const [id, held] of this.held) if (held.pass < pass) this.drop(id, gone(id, held));
    return page.resourceVersion;
  }

  /**
   * Follows one watch until the server ends it. Each event's resourceVersion is where the next
   * watch starts, even if this one then fails.
   */
  private async watchFrom(version: string): Promise<void> {
    const from = { resourceVersion: version, timeoutSeconds: this.options.timings.watchSeconds() };
    for await (const event of this.options.source.watch(from, this.abort.signal)) {
      if (this.stopped) break;
      const obj = event.object as KubeObject;
      if (event.type === "ERROR") throw statusError(event.object as { code?: number });
      this.version = versionOf(obj) ?? this.version;
      if (event.type === "BOOKMARK") continue;
      if (event.type === "DELETED") this.deleted(obj);
      else this.take(obj, this.pass);
    }
  }

  /** An object listed or delivered: held if kept (and reported when new or changed), else dropped. */
  private take(obj: KubeObject, pass: number): void {
    const id = idOf(obj);
    const held = this.held.get(id);
    if (!this.options.keep(obj)) {
      if (held) this.drop(id, gone(id, held));
      return;
    }
    const uid = obj.metadata?.uid;
    const version = versionOf(obj);
    this.held.set(id, { uid, version, labels: obj.metadata?.labels, pass });
    const same = held && held.uid === uid && held.version === version;
    if (!same) this.options.onEvent(held ? "MODIFIED" : "ADDED", obj);
  }

  private deleted(obj: KubeObject): void {
    const id = idOf(obj);
    const held = this.held.get(id);
    if (held) this.drop(id, obj);
    else this.tombstones?.add(obj.metadata?.uid ?? id);
  }

  private drop(id: string, obj: KubeObject): void {
    this.held.delete(id);
    this.options.onEvent("DELETED", obj);
  }

  /**
   * Lists `namespace`'s objects matching `selector` and takes those kept now and not held: what
   * arrived before their owner was known. Resolves once done; rejects if a list fails.
   */
  async revisit(namespace: string, selector: string): Promise<void> {
    this.revisits++;
    this.tombstones ??= new Set();
    const tombstones = this.tombstones;
    try {
      let page: ListPage | undefined;
      do {
        page = await this.options.source.list({ namespace, selector, continue: page?.continue });
        const missed = page.items.filter(
          item => !tombstones.has(item.metadata?.uid ?? idOf(item)) && !this.held.has(idOf(item)),
        );
        missed.forEach(item => this.take(item, this.pass));
      } while (page.continue && !this.stopped);
    } finally {
      if (--this.revisits === 0) this.tombstones = undefined;
    }
  }
}
