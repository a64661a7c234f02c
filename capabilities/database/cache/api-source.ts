/**
 * A reflector's source on the apiserver: pages of a LIST and a WATCH of one kind, in every
 * namespace or in one, label-selected, through lib/kube-api's connection.
 */
import { ObjectRef } from "../cluster/cluster";
import { collectionPath } from "../cluster/api-cluster";
import { KubeRequest, kubeRequest } from "../lib/kube-api";
import { WatchStream, kubeWatch } from "../lib/kube-watch";
import { ListPage, ListScope, ReflectorSource } from "./reflector";

/** Objects per LIST page: a tenant's thousands of objects pass through in pages of this many. */
export const PAGE_LIMIT = 500;

/** Silence beyond the watch's own timeout: the connection is gone without a word. */
const IDLE_GRACE_MS = 30_000;

interface ListResponse {
  items?: ListPage["items"];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** Two selectors, ANDed (`a=b,c=d`). */
export const bothSelectors = (...selectors: (string | undefined)[]): string | undefined =>
  selectors.filter(s => s !== undefined && s !== "").join(",") || undefined;

export function apiSource(
  ref: Pick<ObjectRef, "apiVersion" | "kind">,
  scope: { namespace?: string; selector?: string },
  io: { request: KubeRequest; watch: WatchStream } = { request: kubeRequest, watch: kubeWatch },
): ReflectorSource {
  return {
    async list(page: ListScope): Promise<ListPage> {
      const path = collectionPath(ref, page.namespace ?? scope.namespace);
      const response = await io.request<ListResponse>("GET", path, {
        query: {
          labelSelector: bothSelectors(scope.selector, page.selector),
          limit: PAGE_LIMIT,
          continue: page.continue,
        },
      });
      return {
        items: response.items ?? [],
        resourceVersion: response.metadata?.resourceVersion ?? "",
        continue: response.metadata?.continue || undefined,
      };
    },
    watch({ resourceVersion, timeoutSeconds }, signal) {
      return io.watch(
        collectionPath(ref, scope.namespace),
        {
          labelSelector: scope.selector,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
        },
        { signal, idleMs: timeoutSeconds * 1000 + IDLE_GRACE_MS },
      );
    },
  };
}
