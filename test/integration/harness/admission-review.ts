/**
 * AdmissionReviews as the apiserver sends them to our webhooks, for sending straight to the
 * webhook server: ordinary ones, and the hostile shapes of issue 14 (oversized, deeply nested,
 * costly to validate).
 */
import { request } from "node:https";
import { get, kubectlOk } from "./kubectl";
import { database } from "./fixtures";

/** Where the apiserver sends a webhook kind's reviews: host, port and Pepr's secret path. */
export interface WebhookTarget {
  host: string;
  port: number;
  /** /mutate/<secret path> or /validate/<…>. */
  path: string;
}

interface ClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
}

/**
 * The webhook server as Pepr registered it: a URL under `pepr dev` (this machine, port 3000), a
 * Service when installed by `pepr deploy` (its ClusterIP, which kube-proxy's rules make reachable
 * from the node as from the apiserver).
 */
export function webhookTarget(kind: "mutating" | "validating"): WebhookTarget {
  const config = JSON.parse(
    kubectlOk(["get", `${kind}webhookconfiguration`, "pepr-pgkeeper", "-o", "json"]),
  ) as { webhooks: { clientConfig: ClientConfig }[] };
  const { url, service } = config.webhooks[0].clientConfig;
  if (url) {
    const u = new URL(url);
    return { host: u.hostname, port: Number(u.port || 443), path: u.pathname };
  }
  if (!service) throw new Error(`${kind} webhook pepr-pgkeeper has neither a URL nor a Service`);
  const ip = (get("service", service.namespace, service.name)?.spec as { clusterIP?: string })
    ?.clusterIP;
  if (!ip) throw new Error(`no ClusterIP for Service ${service.namespace}/${service.name}`);
  return { host: ip, port: service.port ?? 443, path: service.path ?? "/" };
}

/** An AdmissionReview for creating `object` (a Database). */
export function review(uid: string, object: object): string {
  const gvk = { group: "pgkeeper.dev", version: "v1alpha1", kind: "Database" };
  const gvr = { group: "pgkeeper.dev", version: "v1alpha1", resource: "databases" };
  const metadata = (object as { metadata: { name: string; namespace: string } }).metadata;
  return JSON.stringify({
    kind: "AdmissionReview",
    apiVersion: "admission.k8s.io/v1",
    request: {
      uid,
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      name: metadata.name,
      namespace: metadata.namespace,
      operation: "CREATE",
      // An administrator: the SubjectAccessReview for each Secret the spec names says yes.
      userInfo: { username: "pgkeeper-admin", groups: ["system:masters", "system:authenticated"] },
      object,
      oldObject: null,
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    },
  });
}

/** A realistic Database a user would create. */
export const ordinaryDatabase = (ns: string, name: string): object =>
  database(ns, name, { instances: 3, postgresql: { parameters: { work_mem: "8MB" } } });

/** A review `bytes` larger than an ordinary one (an annotation of that size). */
export function paddedReview(uid: string, ns: string, bytes: number): string {
  const db = database(ns, "padded") as { metadata: Record<string, unknown> };
  db.metadata.annotations = { pad: "x".repeat(bytes) };
  return review(uid, db);
}

/** A review whose object holds a value nested `levels` deep. */
export function deeplyNestedReview(uid: string, ns: string, levels: number): string {
  const body = review(uid, { ...database(ns, "deep"), extra: "__deep__" });
  return body.replace('"__deep__"', '{"a":'.repeat(levels) + "1" + "}".repeat(levels));
}

/** A review of the largest parameter map the schema allows, every name a long typo. */
export function costlyReview(uid: string, ns: string): string {
  const parameters = Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [`shared_bufferz_${"q".repeat(60)}${i}`, "1"]),
  );
  return review(uid, database(ns, "costly", { postgresql: { parameters } }));
}

export interface WebhookReply {
  status: number;
  text: string;
  ms: number;
}

/** POSTs `body` to the webhook server at `target`. */
export function postToWebhook(
  target: WebhookTarget,
  body: string,
  timeoutMs: number,
): Promise<WebhookReply> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: target.host,
        port: target.port,
        path: target.path,
        method: "POST",
        rejectUnauthorized: false, // Pepr's own certificate; the path is the secret here
        headers: { "Content-Type": "application/json" },
      },
      res => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", chunk => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // A sender cut off mid-body may see its write fail after the answer has arrived.
    req.on("error", error => (answered ? undefined : reject(error)));
    req.end(body);
  });
}
