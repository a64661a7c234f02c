/**
 * The majors the operator defaults an image for (IMAGE_VERSIONS) are exactly those the image
 * scripts build: a default naming an image nobody builds would leave every such Database in
 * ImagePullBackOff, and an image built for a major the operator refuses is dead weight.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { DEFAULT_IMAGE_REPOSITORY, IMAGE_VERSIONS } from "../../capabilities/database/lib/config";

const LIB = path.join(__dirname, "lib.sh");
/** Evaluates bash with lib.sh sourced; prints what `script` prints. */
const inLib = (script: string): string =>
  execFileSync("bash", ["-c", `source "$1"; ${script}`, "bash", LIB], {
    encoding: "utf8",
    env: { ...process.env, PGKEEPER_CACHE: "/nonexistent" },
  }).trim();

it("the image scripts build one image per major the operator defaults", () => {
  expect(inLib('printf "%s\\n" "${POSTGRES_MAJORS[@]}"').split("\n")).toEqual([...IMAGE_VERSIONS]);
});

it("every major has a Debian suite, and the images are under the operator's default repository", () => {
  for (const major of IMAGE_VERSIONS) {
    expect(inLib(`printf "%s" "\${POSTGRES_SUITES[${major}]}"`)).toMatch(/^[a-z]+$/);
    expect(inLib(`postgres_ref ${major}`)).toBe(`${DEFAULT_IMAGE_REPOSITORY}/postgres:${major}`);
  }
});

it("the archives the import script knows include every major's image", () => {
  const archives = inLib(
    'for r in "${IMAGE_REFS[@]}"; do printf "%s=%s\\n" "$r" "${IMAGE_ARCHIVES[$r]}"; done',
  );
  for (const major of IMAGE_VERSIONS) {
    expect(archives).toContain(`${DEFAULT_IMAGE_REPOSITORY}/postgres:${major}=postgres-${major}`);
  }
});
