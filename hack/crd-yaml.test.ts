import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadAll } from "js-yaml";
import { allCrds, backupCrd, celRules, databaseCrd } from "../capabilities/database/api/crd";
import { renderCrdYaml } from "./crd-yaml";

describe("deploy/crd.yaml", () => {
  const shipped = readFileSync(join(__dirname, "..", "deploy", "crd.yaml"), "utf8");

  it("matches the TypeScript API source (run `npm run crd:generate` after changing the API)", () => {
    expect(shipped).toEqual(renderCrdYaml());
  });

  it("parses back to the same objects", () => {
    expect(loadAll(shipped)).toEqual(allCrds());
  });
});

type Schema = {
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
};

const undocumented = (s: Schema, path: string): string[] => [
  ...(s.description || path === ".metadata" || path === "" ? [] : [path]),
  ...Object.entries(s.properties ?? {}).flatMap(([k, v]) => undocumented(v, `${path}.${k}`)),
  ...(s.items ? undocumented(s.items, `${path}[]`) : []),
];

describe("the Database CRD", () => {
  const crd = databaseCrd() as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };
  const root = crd.spec.versions[0].schema.openAPIV3Schema;

  it("documents every field, so `kubectl explain` is useful", () => {
    expect(undocumented(root, "")).toEqual([]);
  });

  it("has CEL rules for the static checks", () => {
    const paths = celRules().map(r => r.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        ".",
        ".spec.storage.size",
        ".spec.storage.storageClassName",
        ".spec.postgresql.parameters",
        ".spec.postgresql.synchronous",
        ".spec.backup",
        ".spec.bootstrap",
        ".spec.resources",
      ]),
    );
  });
});

describe("the Backup CRD", () => {
  const crd = backupCrd() as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };

  it("documents every field, so `kubectl explain` is useful", () => {
    expect(undocumented(crd.spec.versions[0].schema.openAPIV3Schema, "")).toEqual([]);
  });
});
