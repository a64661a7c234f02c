import { PeprModule } from "pepr";
import cfg from "./package.json";
import { DatabaseCapability } from "./capabilities/database";
import { readRuntimeConfig } from "./capabilities/database/lib/runtime-config";
import { withAdmissionGuard } from "./capabilities/database/webhook/install";

// deferStart only to choose the port (PGKEEPER_PEPR_PORT, default 3000): two watchers on one
// machine (the leader-election tests) cannot share it. `pepr build` runs this file with
// PEPR_MODE=build, where the module only reports its bindings and has no server to start.
const module = new PeprModule(cfg, [DatabaseCapability], { deferStart: true });
// The guard answers oversized and over-deep admission requests before Pepr parses them.
if (process.env.PEPR_MODE !== "build")
  withAdmissionGuard(() => module.start(readRuntimeConfig().peprPort));
