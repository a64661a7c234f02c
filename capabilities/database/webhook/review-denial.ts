/**
 * Denials written before Pepr sees a request: an AdmissionReview the apiserver shows the user as
 * a refusal with our reason, where a 413 or 500 would read "failed calling webhook".
 */
import { ShapeProblem } from "./json-shape";

export interface AdmissionReviewDenial {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  response: { uid: string; allowed: false; status: { code: number; message: string } };
}

export function denialReview(uid: string, code: number, message: string): AdmissionReviewDenial {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid, allowed: false, status: { code, message } },
  };
}

const REQUEST_UID = /"request"\s*:\s*\{\s*"uid"\s*:\s*"([^"\\]{1,128})"/;
const ANY_UID = /"uid"\s*:\s*"([^"\\]{1,128})"/;

/**
 * The request's uid from the first bytes of a body too large to parse. The apiserver writes it
 * first (`{"kind":…,"apiVersion":…,"request":{"uid":…`); any other sender gets the first uid.
 */
export function uidFromPrefix(prefix: string): string | undefined {
  return (REQUEST_UID.exec(prefix) ?? ANY_UID.exec(prefix))?.[1];
}

/** The request's uid from a parsed body, or undefined when it is not an AdmissionReview. */
export function uidOf(review: unknown): string | undefined {
  if (typeof review !== "object" || review === null) return undefined;
  const request = (review as { request?: unknown }).request;
  if (typeof request !== "object" || request === null) return undefined;
  const uid = (request as { uid?: unknown }).uid;
  return typeof uid === "string" ? uid : undefined;
}

const mebibytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** `complete` false: the sender was cut off after `bytes`, so the body is larger still. */
export const tooLargeMessage = (bytes: number, limit: number, complete: boolean): string =>
  `the admission request is ${complete ? "" : "more than "}${mebibytes(bytes)}; pgkeeper admits requests of at most ${mebibytes(limit)} (a Database or Backup is a few kB: look for an oversized annotation, label or spec value)`;

/** Where a key sits, as the object's own field path (`spec.postgresql.parameters.__proto__`). */
function fieldPath(path: string[]): string {
  const inObject = path[0] === "request" && /^(object|oldObject)$/.test(path[1] ?? "");
  return (inObject ? path.slice(2) : path).join(".");
}

export function shapeMessage(problem: NonNullable<ShapeProblem>): string {
  switch (problem.kind) {
    case "depth":
      return `the admission request nests deeper than ${problem.limit} levels; no Database or Backup field does (look for a runaway nested value)`;
    case "nodes":
      return `the admission request holds more than ${problem.limit} values; a Database or Backup holds a few hundred (look for a runaway list or map)`;
    case "key":
      return `${fieldPath(problem.path)}: "${problem.key}" is not a field, label or parameter name anywhere in a Database or Backup (and JavaScript objects lose it, so it cannot be judged); remove it`;
  }
}
