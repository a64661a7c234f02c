/**
 * The Database capability — the routing table. Each binding says what it does; the work lives in
 * admission/ (webhooks), reconcile/ (convergence) and controller.ts (queue and retries).
 */
import { Capability } from "pepr";
import { Database } from "./api/database";
import { mutateDatabase } from "./admission/mutate";
import { validateDatabaseRequest } from "./admission/validate";
import { controller } from "./controller";
import { isWatcherProcess, startWatcherRuntime } from "./runtime";

export const DatabaseCapability = new Capability({
  name: "database",
  description: "Runs PostgreSQL: the Database custom resource (pgkeeper.dev/v1alpha1).",
});

const { When } = DatabaseCapability;

// Admission: fill defaults, then reject invalid specs with the field named. Reconcile follows
// every create/update through our work queue (not our own status writes: see cache/changes.ts);
// Finalize runs cleanup before the object goes (on the leader only; a standby returns false).
When(Database)
  .IsCreatedOrUpdated()
  .Mutate(mutateDatabase)
  .Validate(validateDatabaseRequest)
  .Watch(db => controller().enqueue(db))
  .Finalize(db => controller().finalize(db));

// A deleted Database: drop its queue entry and retry state.
When(Database)
  .IsDeleted()
  .Watch(db => controller().forget(db));

// Children we manage (Secrets, ConfigMaps, Services, Pods, PVCs, StatefulSets, PDBs, CronJobs):
// not Pepr bindings but one label-selected informer per kind (cache/informers.ts), feeding the
// read cache and enqueuing the owning Database when a child changed or vanished (drift, pod
// readiness). Started with the controller's cache, leader election and metrics, in the watcher only.
if (isWatcherProcess()) startWatcherRuntime();
