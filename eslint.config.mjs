import js from "@eslint/js";
import tseslint from "@typescript-eslint/eslint-plugin";
import tsParser from "@typescript-eslint/parser";
import globals from "globals";
import path from "node:path";
import { fileURLToPath } from "node:url";

const tsconfigRootDir = path.dirname(fileURLToPath(import.meta.url));

export default [
  // .work: what the test tiers write (the dev runner bundles the module there).
  { ignores: ["**/node_modules", "**/dist", "coverage", "hack/cluster/kube", ".work"] },
  js.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "@typescript-eslint": tseslint },
    languageOptions: {
      parser: tsParser,
      parserOptions: { projectService: true, tsconfigRootDir, sourceType: "module" },
      globals: { ...globals.node, ...globals.jest },
    },
    rules: {
      ...tseslint.configs["eslint-recommended"].overrides[0].rules,
      ...tseslint.configs.recommended.rules,
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/explicit-module-boundary-types": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      complexity: ["error", 12],
      "max-depth": ["error", 3],
      "max-params": ["error", 5],
    },
  },
  {
    files: ["**/*.test.ts", "test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/explicit-module-boundary-types": "off",
      "max-depth": "off",
      complexity: "off",
    },
  },
  {
    // Hand-written scanners and recursive-descent parsers of C (the GUC tables): one function per
    // grammar level reads better than the same split further to please a branch count.
    files: ["hack/parameter-catalog/c-*.ts", "hack/parameter-catalog/guc-tables.ts"],
    rules: { "max-depth": "off", complexity: "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
