/**
 * The Lease on the API, three calls: get, create, and a compare-and-swap update. KFC 3.11.6 has
 * no Lease kind and no PUT, so the update is a JSON Patch whose first operation tests
 * metadata.resourceVersion: the apiserver applies it atomically, and a concurrent writer makes the
 * test fail (HTTP 409/422) instead of being overwritten — optimistic locking, as a replace with a
 * resourceVersion would give.
 */
import { K8s, a } from "pepr";
import { isNotFound } from "../lib/errors";
import { LeaseRecord } from "./decide";

export interface ObservedLease {
  record: LeaseRecord;
  resourceVersion: string;
}

export interface LeaseClient {
  get(): Promise<ObservedLease | undefined>;
  /** Fails (409 AlreadyExists) when another candidate created it first. */
  create(record: LeaseRecord): Promise<void>;
  /** Fails when the Lease changed since `resourceVersion` was read. */
  update(record: LeaseRecord, resourceVersion: string): Promise<void>;
}

const LEASE_KIND = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
};

type LeaseObject = a.GenericKind & { spec?: LeaseRecord };

/** The Lease `namespace/name` through kubernetes-fluent-client. */
export function kfcLeaseClient(namespace: string, name: string): LeaseClient {
  const api = () => K8s(a.GenericKind, { namespace, name, kindOverride: LEASE_KIND });
  return {
    async get() {
      try {
        const lease = (await K8s(a.GenericKind, { kindOverride: LEASE_KIND })
          .InNamespace(namespace)
          .Get(name)) as LeaseObject;
        return { record: lease.spec ?? {}, resourceVersion: lease.metadata?.resourceVersion ?? "" };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record) {
      await K8s(a.GenericKind, { kindOverride: LEASE_KIND }).Create({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace },
        spec: record,
      } as LeaseObject);
    },
    async update(record, resourceVersion) {
      await api().Patch([
        { op: "test", path: "/metadata/resourceVersion", value: resourceVersion },
        { op: "replace", path: "/spec", value: record },
      ]);
    },
  };
}
