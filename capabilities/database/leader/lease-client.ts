/**
 * The Lease on the API, three calls: get, create, and a compare-and-swap replace (PUT with the
 * resourceVersion read): a concurrent writer makes it fail with 409 Conflict instead of being
 * overwritten.
 */
import { isNotFound } from "../lib/errors";
import { KubeRequest, kubeRequest } from "../lib/kube-api";
import { LeaseRecord } from "./decide";

export interface ObservedLease {
  record: LeaseRecord;
  resourceVersion: string;
}

export interface LeaseClient {
  get(): Promise<ObservedLease | undefined>;
  /** Fails (409 AlreadyExists) when another candidate created it first. */
  create(record: LeaseRecord): Promise<void>;
  /** Fails (409 Conflict) when the Lease changed since `resourceVersion` was read. */
  update(record: LeaseRecord, resourceVersion: string): Promise<void>;
}

interface LeaseObject {
  metadata?: { resourceVersion?: string };
  spec?: LeaseRecord;
}

/** The Lease `namespace/name` on `api` (the process-wide pool unless a test gives another). */
export function apiLeaseClient(
  namespace: string,
  name: string,
  api: KubeRequest = kubeRequest,
): LeaseClient {
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const path = `${collection}/${encodeURIComponent(name)}`;
  const lease = (record: LeaseRecord, resourceVersion?: string) => ({
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: record,
  });
  return {
    async get() {
      try {
        const found = await api<LeaseObject>("GET", path);
        return { record: found.spec ?? {}, resourceVersion: found.metadata?.resourceVersion ?? "" };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record) {
      await api("POST", collection, { body: lease(record) });
    },
    async update(record, resourceVersion) {
      await api("PUT", path, { body: lease(record, resourceVersion) });
    },
  };
}
