/**
 * The Database capability — the routing table. Each binding says what it does; the work lives in
 * admission/ (webhooks) and, in the watcher process, the runtime (runtime.ts: cache, informers,
 * controller, leader election, metrics).
 */
import { Capability } from "pepr";
import { Database } from "./api/database";
import { mutateDatabase } from "./admission/mutate";
import { validateDatabaseRequest } from "./admission/validate";
import { isWatcherProcess, peprWatchesDatabases, startWatcherRuntime } from "./runtime";

export const DatabaseCapability = new Capability({
  name: "database",
  description: "Runs PostgreSQL: the Database custom resource (pgkeeper.dev/v1alpha1).",
});

const { When } = DatabaseCapability;

// The watcher's machinery; admission pods and `pepr build` have none (Watch runs only there).
const controller = isWatcherProcess() ? startWatcherRuntime() : undefined;

// The watcher's runtime watches Databases itself (runtime.ts peprWatchesDatabases); the
// bindings stay for `pepr build`, which makes the watcher Deployment from them.
const peprWatches = peprWatchesDatabases(controller !== undefined);

// Admission: fill defaults, then reject invalid specs with the field named. Reconcile follows
// every create/update through our work queue (not our own status writes: see cache/changes.ts).
// No Finalize: deletion needs nothing from the operator (docs/adr/0005).
const admitted = When(Database)
  .IsCreatedOrUpdated()
  .Mutate(mutateDatabase)
  .Validate(validateDatabaseRequest);
if (peprWatches) admitted.Watch(db => controller?.enqueue(db));

// A deleted Database: drop its queue entry, retry state, cache entry and HA memory.
if (peprWatches)
  When(Database)
    .IsDeleted()
    .Watch(db => controller?.forget(db));

// Children we manage and the objects around them (api/kinds.ts CHILD_KINDS, and Backups): not
// Pepr bindings but one label-selected informer per kind (cache/informers.ts), feeding the read
// cache and enqueuing the owning Database when a child changed or vanished (drift, pod
// readiness). Started by the runtime, with the cache, leader election and metrics.
