import { input } from "../../../test/unit/builder-fixtures";
import { BackupJobRequest, buildBackupJob } from "./backup-job";
import { buildStatefulSet } from "./statefulset";

describe("spec.imagePullSecrets reach every pod that runs spec.image", () => {
  const named = [{ name: "regcred" }, { name: "other" }];
  it.each<[string, { name: string }[] | undefined, object | undefined]>([
    ["none", undefined, undefined],
    ["an empty list", [], undefined],
    ["two Secrets", named, named],
  ])("%s", (_, secrets, expected) => {
    const spec = input(secrets === undefined ? {} : { imagePullSecrets: secrets });
    expect(buildStatefulSet(spec, "hash").spec?.template.spec?.imagePullSecrets).toEqual(expected);
  });
});

it("the backup Jobs pull with the same Secrets", () => {
  const store = { endpoint: "s3.example", bucket: "b", credentials: { secretName: "s3" } };
  const request: BackupJobRequest = {
    name: "b-1",
    owner: { apiVersion: "pgkeeper.dev/v1alpha1", kind: "Backup", name: "b-1", uid: "u" },
    type: "full",
    instances: ["db-0"],
    verify: false,
  };
  const spec = input({ imagePullSecrets: [{ name: "regcred" }], backup: { objectStore: store } });
  expect(buildBackupJob(spec, request)?.spec?.template.spec?.imagePullSecrets).toEqual([
    { name: "regcred" },
  ]);
});
