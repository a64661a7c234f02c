/**
 * The Database capability — the routing table. Each binding says what it does; the work lives in
 * admission/ (webhooks), reconcile/ (convergence) and controller.ts (queue and retries).
 */
import { Capability, a } from "pepr";
import { Database } from "./api/database";
import { LABEL_DATABASE, LABEL_MANAGED_BY, MANAGER } from "./api/names";
import { mutateDatabase } from "./admission/mutate";
import { validateDatabaseRequest } from "./admission/validate";
import { controller } from "./controller";

export const DatabaseCapability = new Capability({
  name: "database",
  description: "Runs PostgreSQL: the Database custom resource (pgkeeper.dev/v1alpha1).",
});

const { When } = DatabaseCapability;

/** The owning Database of a child object, from our label (no API call). */
const ownerOf = (obj: a.GenericKind): { metadata: { namespace?: string; name?: string } } => ({
  metadata: { namespace: obj.metadata?.namespace, name: obj.metadata?.labels?.[LABEL_DATABASE] },
});

// Admission: fill defaults, then reject invalid specs with the field named. Reconcile follows
// every create/update through our work queue; Finalize runs cleanup before the object goes.
When(Database)
  .IsCreatedOrUpdated()
  .Mutate(mutateDatabase)
  .Validate(validateDatabaseRequest)
  .Watch(db => controller().enqueue(db))
  .Finalize(async db => {
    await controller().onDeleted(db);
    return true;
  });

// A deleted Database: drop its queue entry and retry state.
When(Database)
  .IsDeleted()
  .Watch(db => controller().forget(db));

// Children we manage changed or vanished (drift, pod readiness): reconcile their Database.
When(a.StatefulSet)
  .IsCreatedOrUpdated()
  .WithLabel(LABEL_MANAGED_BY, MANAGER)
  .Watch(sts => controller().enqueue(ownerOf(sts)));
When(a.StatefulSet)
  .IsDeleted()
  .WithLabel(LABEL_MANAGED_BY, MANAGER)
  .Watch(sts => controller().enqueue(ownerOf(sts)));
When(a.Pod)
  .IsCreatedOrUpdated()
  .WithLabel(LABEL_MANAGED_BY, MANAGER)
  .Watch(pod => controller().enqueue(ownerOf(pod)));
When(a.Pod)
  .IsDeleted()
  .WithLabel(LABEL_MANAGED_BY, MANAGER)
  .Watch(pod => controller().enqueue(ownerOf(pod)));
