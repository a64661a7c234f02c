/**
 * The file system of one of pgkeeper's PostgreSQL instance images (hack/images/postgres.sh),
 * unpacked on the host so that the very binaries an instance of that major runs can be run here
 * under chroot: the parameter catalogs are generated from them (hack/parameter-catalog) and
 * checked against them (test/postgres/parameter-catalog.test.ts). Unpacked once per build of the
 * image (its build key names the directory), under the checkout's .work.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";

/** The image's postgres user and group (postgres.sh moves them there). */
export const IMAGE_UID = 999;

const ROOT = path.resolve(__dirname, "..", "..");
const WORK = process.env.PGKEEPER_WORK ?? path.join(ROOT, ".work");
const IMAGES = path.join(
  process.env.PGKEEPER_CACHE ?? path.join(process.env.HOME ?? "/root", ".cache", "pgkeeper"),
  "images",
);

const archiveOf = (major: string) => path.join(IMAGES, `postgres-${major}.tar`);

function buildKey(major: string): string {
  const file = path.join(IMAGES, `postgres-${major}.key`);
  if (!existsSync(file) || !existsSync(archiveOf(major)))
    throw new Error(
      `no image of PostgreSQL ${major} in ${IMAGES}: build it with bash hack/images/postgres.sh ${major}`,
    );
  return readFileSync(file, "utf8").trim().slice(0, 16);
}

interface Descriptor {
  digest: string;
}

/** The one layer of a one-layer OCI archive (what pack_image in lib.sh makes), into `rootfs`. */
function unpack(archive: string, rootfs: string): void {
  const layout = `${rootfs}.layout`;
  const partial = `${rootfs}.partial`;
  for (const dir of [layout, partial]) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  execFileSync("tar", ["-xf", archive, "-C", layout]);
  const blob = (d: Descriptor) => path.join(layout, "blobs", ...d.digest.split(":"));
  const index = JSON.parse(readFileSync(path.join(layout, "index.json"), "utf8")) as {
    manifests: Descriptor[];
  };
  const manifest = JSON.parse(readFileSync(blob(index.manifests[0]), "utf8")) as {
    layers: Descriptor[];
  };
  if (manifest.layers.length !== 1)
    throw new Error(`${archive}: ${manifest.layers.length} layers, expected one`);
  execFileSync("tar", ["-xf", blob(manifest.layers[0]), "-C", partial, "--numeric-owner"]);
  // Renamed only once whole: an interrupted unpack is never taken for a finished one.
  renameSync(partial, rootfs);
  rmSync(layout, { recursive: true, force: true });
}

/** The image of `major`'s file system, unpacked (once per build of the image). Needs root. */
export function imageRootfs(major: string): string {
  if (process.getuid?.() !== 0) throw new Error("the instance images' servers need root (chroot)");
  const rootfs = path.join(WORK, "postgres-images", `${major}-${buildKey(major)}`);
  if (!existsSync(rootfs)) unpack(archiveOf(major), rootfs);
  return rootfs;
}

/** `program` of the image's PostgreSQL `major`, run in `rootfs` as the image's postgres user. */
export const chrootCommand = (
  rootfs: string,
  major: string,
  program: string,
  args: string[],
): { command: string; args: string[] } => ({
  command: "/usr/sbin/chroot",
  args: [
    `--userspec=${IMAGE_UID}:${IMAGE_UID}`,
    rootfs,
    `/usr/lib/postgresql/${major}/bin/${program}`,
    ...args,
  ],
});
