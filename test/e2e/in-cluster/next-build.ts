/**
 * A build whose instance pod template differs from this checkout's, for the operator-upgrade
 * test: this checkout copied (tracked and new files; node_modules linked, so pepr and its patch
 * are the same), with one change to the StatefulSet builder, the kind a release makes (here an
 * annotation on the pod template). Deployed over running Databases, its operator finds every
 * instance on an older template and rolls them.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { env } from "../../integration/harness/env";

export const NEXT_BUILD_ANNOTATION = "pgkeeper.dev/e2e-build";
const BUILDER = "capabilities/database/specs/statefulset.ts";
/** The pod template's first annotation: the next build adds one beside it. */
const TEMPLATE_ANNOTATION = "[ANNOTATION_CONFIG_HASH]: configHash,";

/** The copy's directory; `remove()` deletes it. Outside the repository, which tsc includes whole. */
export function templateChangingCheckout(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "pgkeeper-next-build-"));
  const listed = spawnSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: env.repo,
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (!existsSync(join(env.repo, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(env.repo, file), join(dir, file));
  }
  symlinkSync(join(env.repo, "node_modules"), join(dir, "node_modules"));
  const builder = join(dir, BUILDER);
  const source = readFileSync(builder, "utf8");
  if (source.split(TEMPLATE_ANNOTATION).length !== 2)
    throw new Error(
      `${BUILDER} has not exactly one "${TEMPLATE_ANNOTATION}": change next-build.ts`,
    );
  writeFileSync(
    builder,
    source.replace(
      TEMPLATE_ANNOTATION,
      `${TEMPLATE_ANNOTATION} "${NEXT_BUILD_ANNOTATION}": "n+2",`,
    ),
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
