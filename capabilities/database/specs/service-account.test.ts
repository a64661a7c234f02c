import { DB_NAME, input } from "../../../test/unit/builder-fixtures";
import { buildServiceAccount } from "./service-account";
import { buildStatefulSet } from "./statefulset";

describe("the pods' own ServiceAccount", () => {
  const account = buildServiceAccount(input());

  it("is named after the Database, never the namespace's default, and mounts no token", () => {
    expect(account.metadata.name).toBe(`${DB_NAME}-postgres`);
    expect(account.automountServiceAccountToken).toBe(false);
  });

  it("is what the instances run as, with no token mounted", () => {
    const pod = buildStatefulSet(input(), "hash").spec?.template.spec;
    expect(pod?.serviceAccountName).toBe(account.metadata.name);
    expect(pod?.automountServiceAccountToken).toBe(false);
  });
});
