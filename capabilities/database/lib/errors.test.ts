import {
  errorMessage,
  httpStatus,
  isConflict,
  isNamespaceTerminating,
  isNotFound,
  isTransportError,
  MAX_ERROR_MESSAGE,
  statusReason,
} from "./errors";

/** What KFC 3.11.6 throws for an HTTP error: its fetch result, with real response headers. */
const kfcError = (status: number, data: unknown, statusText = "") => ({
  ok: false,
  status,
  statusText,
  data,
  headers: new Headers({ "content-type": "application/json" }),
});

const k8sStatus = (code: number, reason: string, message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  code,
  reason,
  message,
});

/** What KFC throws when no response arrived: synthetic 400, cause in `e`, empty headers. */
const kfcTransport = {
  ok: false,
  status: 400,
  statusText: "fetch failed",
  data: undefined,
  headers: new Headers(),
  e: new TypeError("fetch failed: connect ECONNREFUSED 10.96.0.1:443"),
};

const notFound = kfcError(
  404,
  k8sStatus(404, "NotFound", 'databases.pgkeeper.dev "db1" not found'),
  "Not Found",
);
const conflict = kfcError(
  409,
  k8sStatus(409, "Conflict", "the object has been modified; please apply your changes"),
);
const exists = kfcError(409, k8sStatus(409, "AlreadyExists", 'secrets "db1-app" already exists'));

class ApiException extends Error {
  constructor(
    public code: number,
    public body: unknown,
  ) {
    super(`HTTP-Code: ${code}`);
  }
}

describe("httpStatus / isNotFound / isConflict / statusReason", () => {
  it.each([
    ["KFC 404", notFound, 404, "NotFound"],
    ["KFC 409 conflict", conflict, 409, "Conflict"],
    ["KFC 409 already exists", exists, 409, "AlreadyExists"],
    [
      "KFC 500 with text body",
      kfcError(500, "internal error", "Internal Server Error"),
      500,
      undefined,
    ],
    ["KFC transport failure", kfcTransport, undefined, undefined],
    ["bare Status object", k8sStatus(422, "Invalid", "spec.x: Invalid value"), 422, "Invalid"],
    [
      "client-node ApiException",
      new ApiException(403, k8sStatus(403, "Forbidden", "no")),
      403,
      "Forbidden",
    ],
    ["statusCode field", { statusCode: 503 }, 503, undefined],
    ["plain Error", new Error("boom"), undefined, undefined],
    [
      "Node system error (string code)",
      Object.assign(new Error("x"), { code: "ECONNRESET" }),
      undefined,
      undefined,
    ],
    ["out-of-range status", { status: 42 }, undefined, undefined],
    ["string", "boom", undefined, undefined],
    ["undefined", undefined, undefined, undefined],
    ["null", null, undefined, undefined],
  ])("%s", (_name, err, status, reason) => {
    expect(httpStatus(err)).toBe(status);
    expect(statusReason(err)).toBe(reason);
    expect(isNotFound(err)).toBe(status === 404);
    expect(isConflict(err)).toBe(status === 409);
  });

  it("tells a missing response apart from an HTTP 400", () => {
    expect(isTransportError(kfcTransport)).toBe(true);
    expect(isTransportError(kfcError(400, k8sStatus(400, "BadRequest", "bad")))).toBe(false);
    // KFC's body-parse failure on a real response keeps its headers: that is an HTTP error.
    expect(isTransportError({ ...kfcError(502, undefined), e: new SyntaxError("json") })).toBe(
      false,
    );
    expect(httpStatus({ ...kfcError(502, undefined), e: new SyntaxError("json") })).toBe(502);
  });
});

describe("errorMessage", () => {
  it.each([
    ["KFC 404", notFound, 'HTTP 404 NotFound: databases.pgkeeper.dev "db1" not found'],
    [
      "KFC 409",
      conflict,
      "HTTP 409 Conflict: the object has been modified; please apply your changes",
    ],
    [
      "KFC text body",
      kfcError(500, "etcdserver: request timed out"),
      "HTTP 500: etcdserver: request timed out",
    ],
    [
      "KFC statusText only",
      kfcError(503, undefined, "Service Unavailable"),
      "HTTP 503: Service Unavailable",
    ],
    ["KFC no detail", kfcError(502, undefined), "HTTP 502"],
    ["transport", kfcTransport, "request failed: fetch failed: connect ECONNREFUSED 10.96.0.1:443"],
    ["transport without cause message", { ...kfcTransport, e: {} }, "request failed: fetch failed"],
    ["Error", new Error("primary pod not ready"), "primary pod not ready"],
    ["Error without message", new RangeError(""), "RangeError"],
    ["object with message", { name: "TooOld", message: "12345" }, "12345"],
    ["string", "  plain failure ", "plain failure"],
    ["empty string", "", "unknown error"],
    ["number", 42, "42"],
    ["undefined", undefined, "unknown error"],
    ["null", null, "unknown error"],
    ["function (would print its source)", () => "secret", "unknown error"],
    ["object without any known field", { foo: "bar" }, "unknown error"],
  ])("%s", (_name, err, expected) => {
    expect(errorMessage(err)).toBe(expected);
  });

  it("never serialises the thrown object (payloads may hold Secret data)", () => {
    const err = {
      ...kfcError(422, k8sStatus(422, "Invalid", "Secret is invalid")),
      request: { body: { data: { password: "hunter2" } } },
      password: "hunter2",
    };
    expect(errorMessage(err)).toBe("HTTP 422 Invalid: Secret is invalid");
    expect(errorMessage({ token: "hunter2" })).not.toContain("hunter2");
  });

  it("bounds the length", () => {
    const msg = errorMessage(new Error("x".repeat(10_000)));
    expect(msg).toHaveLength(MAX_ERROR_MESSAGE);
    expect(msg.endsWith("…")).toBe(true);
  });
});

describe("isNamespaceTerminating", () => {
  const terminating = {
    ...k8sStatus(
      403,
      "Forbidden",
      'services "a-rw" is forbidden: unable to create new content in namespace n because it is being terminated',
    ),
    details: { name: "a-rw", kind: "services", causes: [{ type: "NamespaceTerminating" }] },
  };
  it.each([
    ["the apiserver's answer", kfcError(403, terminating), true],
    ["the same message without causes", kfcError(403, { ...terminating, details: {} }), true],
    ["another 403", kfcError(403, k8sStatus(403, "Forbidden", "RBAC says no")), false],
    ["a 409", kfcError(409, k8sStatus(409, "Conflict", "because it is being terminated")), false],
    ["no response", kfcTransport, false],
  ])("%s → %p", (_, err, expected) => {
    expect(isNamespaceTerminating(err)).toBe(expected);
  });
});
