import { PeprModule } from "pepr";
import cfg from "./package.json";
import { DatabaseCapability } from "./capabilities/database";

new PeprModule(cfg, [DatabaseCapability]);
