/**
 * Narrowing of thrown values. KFC throws its fetch result as a plain object
 * `{ ok: false, status, statusText, data, headers, e? }` — not an Error — where `data` is usually
 * a Kubernetes Status (`{ kind: "Status", code, reason, message }`). Other code throws Errors,
 * strings or anything else, so every helper accepts `unknown`.
 *
 * Messages are built from a few named fields only, never by serialising the thrown object: it
 * may carry request options, headers or payloads (Secret data) that must not reach logs, events
 * or status.
 */

type Dict = Record<string, unknown>;

/** Long enough for an API server message, short enough for a condition message or an event. */
export const MAX_ERROR_MESSAGE = 500;

const isDict = (v: unknown): v is Dict => typeof v === "object" && v !== null;

const text = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;

const httpCode = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 599 ? v : undefined;

/** The Kubernetes Status (or similar body) attached to the error, if any. */
const statusBody = (err: Dict): Dict | undefined =>
  isDict(err.data) ? err.data : isDict(err.body) ? err.body : undefined;

/** Header count of a fetch Headers (undici's or the global one), duck-typed. */
function headerCount(headers: unknown): number {
  if (!isDict(headers) || typeof headers.forEach !== "function") return 0;
  let count = 0;
  (headers.forEach as (cb: () => void) => void).call(headers, () => count++);
  return count;
}

/**
 * True when KFC got no HTTP response at all (connection refused, DNS, TLS, timeout). KFC then
 * reports a made-up status (400 unless the cause has a numeric code) with the cause in `e` and
 * empty headers; a real response always has headers.
 */
export function isTransportError(err: unknown): boolean {
  return isDict(err) && err.e !== undefined && err.ok === false && headerCount(err.headers) === 0;
}

/** HTTP status of a failed API call, or undefined (not an HTTP error, or no response at all). */
export function httpStatus(err: unknown): number | undefined {
  if (!isDict(err) || isTransportError(err)) return undefined;
  const body = statusBody(err);
  return (
    httpCode(err.status) ?? httpCode(err.statusCode) ?? httpCode(err.code) ?? httpCode(body?.code)
  );
}

/** Machine-readable reason of a Kubernetes Status (`NotFound`, `Conflict`, `AlreadyExists`…). */
export function statusReason(err: unknown): string | undefined {
  if (!isDict(err)) return undefined;
  return text(statusBody(err)?.reason) ?? text(err.reason);
}

export const isNotFound = (err: unknown): boolean => httpStatus(err) === 404;

/** 409: an optimistic-lock conflict, an apply conflict or AlreadyExists (see `statusReason`). */
export const isConflict = (err: unknown): boolean => httpStatus(err) === 409;

/** 409 AlreadyExists: a create found an object of that name. */
export const isAlreadyExists = (err: unknown): boolean =>
  isConflict(err) && statusReason(err) === "AlreadyExists";

/**
 * 403 because the namespace is being deleted: nothing can be created there any more, and the
 * Database goes with the namespace. The apiserver marks it with the cause `NamespaceTerminating`.
 */
export function isNamespaceTerminating(err: unknown): boolean {
  if (!isDict(err) || httpStatus(err) !== 403) return false;
  const body = statusBody(err);
  const details = isDict(body?.details) ? body.details : undefined;
  const causes = Array.isArray(details?.causes) ? details.causes : [];
  return (
    causes.some(c => isDict(c) && c.type === "NamespaceTerminating") ||
    /because it is being terminated/.test(text(body?.message) ?? "")
  );
}

const truncate = (s: string): string =>
  s.length <= MAX_ERROR_MESSAGE ? s : `${s.slice(0, MAX_ERROR_MESSAGE - 1)}…`;

/** The human part of an error object: Status message, Error message, statusText, text body. */
function detailOf(err: Dict): string | undefined {
  const body = statusBody(err);
  return text(body?.message) ?? text(err.message) ?? text(err.data) ?? text(err.statusText);
}

function describeObject(err: Dict): string {
  if (isTransportError(err)) {
    const cause = isDict(err.e) ? text(err.e.message) : text(err.e);
    return `request failed: ${cause ?? text(err.statusText) ?? "no response"}`;
  }
  const status = httpStatus(err);
  const detail = detailOf(err);
  if (status === undefined) return detail ?? (err instanceof Error ? err.name : "unknown error");
  const reason = statusReason(err);
  const head = reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
  return detail && detail !== reason ? `${head}: ${detail}` : head;
}

/** One-line, bounded, secret-free description of anything thrown. */
export function errorMessage(err: unknown): string {
  if (typeof err === "string") return truncate(text(err) ?? "unknown error");
  if (isDict(err)) return truncate(describeObject(err));
  // Functions would print their source: only plain primitives are shown as they are.
  const shown = ["number", "boolean", "bigint", "symbol"].includes(typeof err);
  return shown ? truncate(String(err)) : "unknown error";
}

/** A reconcile failure with a reason for status and Events (UpperCamelCase). */
export class ReconcileError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ReconcileError";
  }
}
