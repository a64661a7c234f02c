/**
 * The webhook's reads of the cluster (restore-source.ts, storage-growth.ts, secret-access.ts): one
 * request each, given up after a short timeout so the webhook answers well within its own (10 s).
 * Any failure but "not found" is "could not tell" (undefined); each check decides what that means.
 */
import { K8s, kind } from "pepr";
import { Database } from "../api/database";
import { isNotFound } from "../lib/errors";
import { METADATA_ONLY, kubeRequest } from "../lib/kube-api";
import { LABEL_DATABASE } from "../api/names";
import { SourceReader } from "./restore-source";
import { AccessReviewer } from "./secret-access";
import { ClaimReader } from "./storage-growth";

/** Long enough for a healthy apiserver, short enough to leave the webhook time to answer. */
const READ_TIMEOUT_MS = 2000;

/** `read`'s result, `missing` on 404, undefined on any other failure or after the timeout. */
async function bounded<T, M>(read: () => Promise<T>, missing: M): Promise<T | M | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>(resolve => {
    timer = setTimeout(() => resolve(undefined), READ_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      read().catch(err => (isNotFound(err) ? missing : undefined)),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type AdmissionReader = SourceReader & ClaimReader & AccessReviewer;

interface SubjectAccessReview {
  status?: { allowed?: boolean };
}

export const clusterReader: AdmissionReader = {
  // Its metadata only: whether it exists is all admission asks, and the data never travels.
  secretExists: (namespace, name) =>
    bounded(async () => {
      await kubeRequest(
        "GET",
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets/${encodeURIComponent(name)}`,
        {
          accept: METADATA_ONLY,
        },
      );
      return true;
    }, false),
  database: (namespace, name) =>
    bounded(async () => {
      const db = await K8s(Database).InNamespace(namespace).Get(name);
      return { uid: db.metadata?.uid, version: db.spec?.version };
    }, null),
  claimsOf: (namespace, db) =>
    bounded(async () => {
      const claims = await K8s(kind.PersistentVolumeClaim)
        .InNamespace(namespace)
        .WithLabel(LABEL_DATABASE, db)
        .Get();
      return claims.items.map(c => ({
        name: c.metadata?.name ?? "",
        class: c.spec?.storageClassName ?? "",
      }));
    }, undefined),
  // As the requesting user, exactly as the authorizer would judge their own `get`. A local
  // review (in the Secret's namespace) needs only a namespaced grant: a namespaced install holds
  // no cluster-wide `create`.
  mayGetSecret: (user, namespace, name) =>
    bounded(async () => {
      const review = await kubeRequest<SubjectAccessReview>(
        "POST",
        `/apis/authorization.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/localsubjectaccessreviews`,
        {
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "LocalSubjectAccessReview",
            metadata: { namespace },
            spec: {
              user: user.username,
              uid: user.uid,
              groups: user.groups,
              extra: user.extra,
              resourceAttributes: { namespace, verb: "get", resource: "secrets", name },
            },
          },
        },
      );
      return review.status?.allowed === true;
    }, undefined),
  allowsExpansion: name =>
    bounded(async () => {
      const storageClass = await K8s(kind.StorageClass).Get(name);
      return storageClass.allowVolumeExpansion === true;
    }, null),
};
