/**
 * Builds hack/dev-operator/run.ts into .work/dev-operator/run.js. run.ts imports Pepr's internals
 * by their declarations (pepr/dist/lib/...: types only, Pepr ships no JavaScript for them
 * outside its CLI bundle); the build takes their TypeScript sources (pepr/src/lib/...) instead,
 * and leaves every package they import to node_modules.
 *   ts-node hack/dev-operator/build.ts
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const repo = resolve(__dirname, "..", "..");
const peprPackage = JSON.parse(
  readFileSync(join(repo, "node_modules", "pepr", "package.json"), "utf8"),
) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };

build({
  absWorkingDir: repo,
  bundle: true,
  entryPoints: ["hack/dev-operator/run.ts"],
  external: [
    ...Object.keys(peprPackage.dependencies ?? {}),
    ...Object.keys(peprPackage.peerDependencies ?? {}),
    "esbuild",
    "@kubernetes/client-node",
  ],
  format: "cjs",
  outfile: join(repo, ".work", "dev-operator", "run.js"),
  plugins: [
    {
      name: "pepr-internals-from-source",
      setup(build) {
        build.onResolve({ filter: /^pepr\/dist\/lib\// }, args => ({
          path: join(repo, "node_modules", "pepr", "src", "lib", `${args.path.slice(14)}.ts`),
        }));
      },
    },
  ],
  platform: "node",
  logLevel: "warning",
}).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
