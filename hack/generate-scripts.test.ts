import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_MARK, renderGeneratedFiles, SCRIPTS_DIR } from "./instance-scripts";

const dir = join(__dirname, "..", SCRIPTS_DIR);

describe(`the generated files of ${SCRIPTS_DIR}`, () => {
  const rendered = renderGeneratedFiles();

  it.each(Object.keys(rendered))(
    "%s matches its sources (run `npm run scripts:generate` after changing a script)",
    file => {
      expect(readFileSync(join(dir, file), "utf8")).toBe(rendered[file]);
    },
  );

  it("has no generated file left whose source is gone", () => {
    const generated = readdirSync(dir).filter(file =>
      readFileSync(join(dir, file), "utf8").includes(GENERATED_MARK),
    );
    expect(generated.sort()).toEqual(Object.keys(rendered).sort());
  });
});
