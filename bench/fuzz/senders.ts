/**
 * How a case reaches admission in each mode:
 * - apiserver: a server-side dry-run create with strict field validation (kubectl's default),
 *   through the keep-alive client: decoding, Mutate, schema and CEL, Validate, as users meet them;
 * - direct: AdmissionReviews POSTed to the webhook server itself (what `pepr dev` serves on
 *   localhost:3000), Mutate first and then Validate with Mutate's patch applied, as the
 *   apiserver would, but with the object exactly as the case has it (nothing pruned or checked
 *   before: the webhook alone must stay up and answer).
 */
import { randomUUID } from "node:crypto";
import { kubectlOk } from "../../test/integration/harness/kubectl";
import { apiClient } from "../lib/apiclient";
import type { FuzzCase } from "./generate";
import { applyPatch, Operation } from "./json-patch";
import { fromApiserver, fromWebhook, Outcome, transportFailure } from "./outcome";

export type Sender = (c: FuzzCase) => Promise<Outcome>;

/** The apiserver's webhook timeout is 10 s; past that a client-side wait only adds noise. */
const APISERVER_TIMEOUT_MS = 30_000;
const WEBHOOK_TIMEOUT_MS = 15_000;
const BODY_CHARS = 64 * 1024;

const inNamespace = (c: FuzzCase, ns: string): Record<string, unknown> => ({
  ...c.object,
  metadata: { ...(c.object.metadata as object), namespace: ns },
});

export function apiserverSender(ns: string, concurrency: number): Sender {
  const api = apiClient(concurrency, undefined, {
    timeoutMs: APISERVER_TIMEOUT_MS,
    maxBodyChars: BODY_CHARS,
  });
  const path = `/apis/pgkeeper.dev/v1alpha1/namespaces/${ns}/databases?dryRun=All&fieldValidation=Strict`;
  return async c => {
    const started = Date.now();
    try {
      return fromApiserver(await api("POST", path, inNamespace(c, ns)));
    } catch (err) {
      return transportFailure(err, Date.now() - started);
    }
  };
}

/** The path Pepr registered for its mutating or validating webhook (/mutate/<secret>, …). */
function webhookUrl(kind: "mutating" | "validating"): URL {
  const out = kubectlOk([
    "get",
    `${kind}webhookconfiguration`,
    "pepr-pgkeeper",
    "-o",
    "jsonpath={.webhooks[0].clientConfig.url}",
  ]);
  return new URL(out);
}

const GVK = { group: "pgkeeper.dev", version: "v1alpha1", kind: "Database" };
const GVR = { group: "pgkeeper.dev", version: "v1alpha1", resource: "databases" };

/** An AdmissionReview of a dry-run create, as the apiserver sends it for `?dryRun=All`. */
function review(uid: string, ns: string, object: Record<string, unknown>): object {
  const meta = object.metadata as { name?: unknown } | undefined;
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: GVK,
      resource: GVR,
      requestKind: GVK,
      requestResource: GVR,
      name: typeof meta?.name === "string" ? meta.name : "",
      namespace: ns,
      operation: "CREATE",
      // As the apiserver mode's requests (kubectl as an administrator): the webhook's
      // SubjectAccessReviews for the Secrets a spec names must say yes in both modes.
      userInfo: { username: "bench-fuzz", groups: ["system:masters", "system:authenticated"] },
      object,
      oldObject: null,
      dryRun: true,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions", dryRun: ["All"] },
    },
  };
}

export function directSender(ns: string, concurrency: number): Sender {
  const mutate = webhookUrl("mutating");
  const validate = webhookUrl("validating");
  const client = apiClient(
    concurrency,
    { url: mutate.origin, insecure: true },
    { timeoutMs: WEBHOOK_TIMEOUT_MS, maxBodyChars: BODY_CHARS * 16 },
  );
  const ask = async (path: string, object: Record<string, unknown>) => {
    const uid = randomUUID();
    return fromWebhook(await client("POST", path, review(uid, ns, object)), uid);
  };
  return async c => {
    const started = Date.now();
    const ms = () => Date.now() - started;
    try {
      const object = inNamespace(c, ns);
      const m = await ask(mutate.pathname, object);
      if ("failure" in m) return { ...m.failure, what: `mutate: ${m.failure.what}`, ms: ms() };
      if (!m.answer.allowed) return { kind: "denied", ms: ms(), message: m.answer.message };
      const ops = m.answer.patch
        ? (JSON.parse(Buffer.from(m.answer.patch, "base64").toString()) as Operation[])
        : [];
      let patched: Record<string, unknown>;
      try {
        patched = applyPatch(object, ops) as Record<string, unknown>;
      } catch (err) {
        return {
          kind: "failure",
          ms: ms(),
          what: "mutate: patch does not apply",
          message: String(err),
        };
      }
      const v = await ask(validate.pathname, patched);
      if ("failure" in v) return { ...v.failure, what: `validate: ${v.failure.what}`, ms: ms() };
      return v.answer.allowed
        ? { kind: "admitted", ms: ms() }
        : { kind: "denied", ms: ms(), message: v.answer.message };
    } catch (err) {
      return transportFailure(err, ms());
    }
  };
}
