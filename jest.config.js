// KFC, @kubernetes/client-node and some of their dependencies ship ESM only; jest runs CommonJS,
// so ts-jest must transform them too (allowJs). PEPR_MODE=build makes pepr register every binding
// at import time, which the capability tests rely on (see docs/pepr-facts in shared docs).
process.env.PEPR_MODE = process.env.PEPR_MODE ?? "build";
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? "silent";

const esmOnly = [
  "kubernetes-fluent-client",
  "@kubernetes/client-node",
  "openid-client",
  "oauth4webapi",
  "jose",
  "node-fetch",
  "data-uri-to-buffer",
  "fetch-blob",
  "formdata-polyfill",
  "quicktype-core",
  "undici",
];

const tsJest = [
  "ts-jest",
  {
    tsconfig: { allowJs: true, module: "commonjs", esModuleInterop: true, isolatedModules: true },
  },
];

const common = {
  testEnvironment: "node",
  transform: { "^.+\\.[tj]sx?$": tsJest, "^.+\\.mjs$": tsJest },
  transformIgnorePatterns: [`node_modules/(?!(${esmOnly.join("|")})/)`],
  moduleFileExtensions: ["ts", "js", "mjs", "json"],
  // The local cluster's state: etcd names its snapshots *.snap, which jest took for its own
  // obsolete snapshots (and exited 1 after every test passed) once a cluster had run here.
  modulePathIgnorePatterns: ["<rootDir>/.work/"],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: "unit",
      testMatch: [
        "<rootDir>/capabilities/**/*.test.ts",
        "<rootDir>/deploy/**/*.test.ts",
        "<rootDir>/hack/**/*.test.ts",
        "<rootDir>/test/unit/**/*.test.ts",
      ],
    },
    {
      ...common,
      displayName: "integration",
      testMatch: ["<rootDir>/test/integration/**/*.test.ts"],
    },
    { ...common, displayName: "e2e", testMatch: ["<rootDir>/test/e2e/**/*.test.ts"] },
    // Real PostgreSQL 15 servers on loopback ports 25432..25499 (hack/test-postgres.sh).
    { ...common, displayName: "postgres", testMatch: ["<rootDir>/test/postgres/**/*.test.ts"] },
  ],
};
