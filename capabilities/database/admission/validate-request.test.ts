import type { PeprValidateRequest } from "pepr";
import type { Database } from "../api/database";
import { validateDatabaseRequest } from "./validate";

interface FakeInput {
  operation: string;
  object: unknown;
  old?: unknown;
  subResource?: string;
}

/** Just enough of PeprValidateRequest for the adapter (no pepr runtime in unit tests). */
const request = ({ operation, object, old, subResource }: FakeInput) =>
  ({
    Request: { operation, subResource },
    Raw: object,
    OldResource: old,
    Approve: () => ({ allowed: true }),
    Deny: (statusMessage?: string) => ({ allowed: false, statusMessage }),
  }) as unknown as PeprValidateRequest<Database>;

const valid = { metadata: { name: "orders" }, spec: { version: "16", storage: { size: "10Gi" } } };
const invalid = {
  metadata: { name: "orders" },
  spec: { version: "13", storage: { size: "10Gi" } },
};
const shrunk = { ...valid, spec: { ...valid.spec, storage: { size: "5Gi" } } };
const dying = {
  ...invalid,
  metadata: { name: "orders", deletionTimestamp: "2025-01-01T00:00:00Z" },
};

describe("validateDatabaseRequest", () => {
  it.each<[string, FakeInput, boolean]>([
    ["valid create", { operation: "CREATE", object: valid }, true],
    ["invalid create", { operation: "CREATE", object: invalid }, false],
    ["shrinking update", { operation: "UPDATE", object: shrunk, old: valid }, false],
    ["growing update", { operation: "UPDATE", object: valid, old: shrunk }, true],
    ["delete", { operation: "DELETE", object: invalid }, true],
    ["object being deleted", { operation: "UPDATE", object: dying, old: valid }, true],
    [
      "status write",
      { operation: "UPDATE", object: invalid, old: valid, subResource: "status" },
      true,
    ],
    ["malformed create", { operation: "CREATE", object: { spec: 5 } }, false],
  ])("%s -> allowed %p", (_title, input, allowed) => {
    expect(validateDatabaseRequest(request(input)).allowed).toBe(allowed);
  });

  it("denies with field-first messages", () => {
    const response = validateDatabaseRequest(
      request({ operation: "UPDATE", object: shrunk, old: valid }),
    );
    expect(response).toEqual({
      allowed: false,
      statusMessage: "spec.storage.size: cannot shrink from 10Gi to 5Gi; storage can only grow",
    });
  });

  it("denies instead of throwing when the request itself is broken", () => {
    const broken = {
      get Request(): never {
        throw new Error("no request");
      },
      Approve: () => ({ allowed: true }),
      Deny: (statusMessage?: string) => ({ allowed: false, statusMessage }),
    } as unknown as PeprValidateRequest<Database>;
    expect(validateDatabaseRequest(broken)).toEqual({
      allowed: false,
      statusMessage: "pgkeeper could not validate this Database: no request",
    });
  });
});
