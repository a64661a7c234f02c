/**
 * What happened to one request: admitted, denied cleanly (a 4xx Status from the apiserver, or a
 * review answered allowed: false with a 4xx code), or a robustness failure, anything else: a
 * 5xx, a Status with code 500, "failed calling webhook" or "Internal error", a timeout, a reset,
 * an answer that is no AdmissionReview for this request.
 */
import type { Response } from "../lib/apiclient";

export type Outcome =
  | { kind: "admitted"; ms: number }
  | { kind: "denied"; ms: number; message: string }
  | { kind: "failure"; ms: number; what: string; message: string };

export type Failure = Extract<Outcome, { kind: "failure" }>;

/** Words of the server failing rather than judging (the integration test's SERVER_ERROR, widened). */
const SERVER_FAILED =
  /InternalError|Internal error|failed calling webhook|Action failed|context deadline exceeded|connection reset|EOF/;

/** Only so much of a message is kept (enough to find a field named late in a long list). */
export const MESSAGE_CHARS = 4000;

const cut = (s: string): string => (s.length > MESSAGE_CHARS ? `${s.slice(0, MESSAGE_CHARS)}…` : s);

function statusOf(body: string): { message: string; code?: number } {
  try {
    const s = JSON.parse(body) as { message?: unknown; code?: unknown };
    return {
      message: typeof s.message === "string" ? s.message : body,
      code: typeof s.code === "number" ? s.code : undefined,
    };
  } catch {
    return { message: body };
  }
}

/** A transport error: timeout, reset, refused. */
export function transportFailure(err: unknown, ms: number): Failure {
  const e = err as { code?: string; message?: string };
  const what = /no answer within/.test(e.message ?? "") ? "timeout" : (e.code ?? "error");
  return { kind: "failure", ms, what, message: cut(e.message ?? String(err)) };
}

/** A dry-run create's answer from the apiserver. */
export function fromApiserver(r: Response): Outcome {
  if (r.status === 201 || r.status === 200) return { kind: "admitted", ms: r.ms };
  const { message, code } = statusOf(r.body);
  const clean =
    r.status >= 400 && r.status < 500 && r.status !== 408 && r.status !== 429 && code !== 500;
  if (clean && !SERVER_FAILED.test(message))
    return { kind: "denied", ms: r.ms, message: cut(message) };
  const what = SERVER_FAILED.exec(message)?.[0] ?? `HTTP ${r.status}`;
  return { kind: "failure", ms: r.ms, what, message: cut(`HTTP ${r.status}: ${message}`) };
}

export interface ReviewAnswer {
  allowed: boolean;
  patch?: string;
  message: string;
}

/** A webhook's answer to a review with `uid`, or the failure it is. */
export function fromWebhook(
  r: Response,
  uid: string,
): { answer: ReviewAnswer } | { failure: Failure } {
  const fail = (what: string, message: string): { failure: Failure } => ({
    failure: { kind: "failure", ms: r.ms, what, message: cut(message) },
  });
  if (r.status !== 200) return fail(`HTTP ${r.status}`, r.body);
  let review: { response?: Record<string, unknown> };
  try {
    review = JSON.parse(r.body) as typeof review;
  } catch {
    return fail("not JSON", r.body);
  }
  const res = review.response;
  if (!res || res.uid !== uid || typeof res.allowed !== "boolean")
    return fail("no AdmissionReview response for this uid", r.body);
  const status = (res.status ?? {}) as { code?: number; message?: string };
  const message = status.message ?? "";
  if (!res.allowed && ((status.code ?? 400) >= 500 || SERVER_FAILED.test(message)))
    return fail(`denied with code ${status.code ?? "?"}`, message);
  const patch = typeof res.patch === "string" ? res.patch : undefined;
  return { answer: { allowed: res.allowed, patch, message: cut(message) } };
}
