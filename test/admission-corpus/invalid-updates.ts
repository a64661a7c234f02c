/** Updates that must be refused: immutable fields and transitions. `old` is created first. */
import { InvalidCase, recovery, spec, STORE } from "./types";

const update = (id: string, old: object, patch: object, field: string): InvalidCase => ({
  id: `update-${id}`,
  spec: old,
  old: old as Record<string, unknown>,
  patch: patch as Record<string, unknown>,
  field,
});

export const UPDATES: InvalidCase[] = [
  // A major upgrade raises spec.version alone (ADR 0041): with another change, two steps.
  update(
    "version-15-to-17-with-instances",
    spec(),
    { version: "17", instances: 2 },
    "spec.version",
  ),
  update("version-15-to-14", spec(), { version: "14" }, "spec.version"),
  update(
    "storage-shrink",
    spec({ storage: { size: "2Gi" } }),
    { storage: { size: "1Gi" } },
    "spec.storage.size",
  ),
  update(
    "storage-shrink-units",
    spec({ storage: { size: "2Gi" } }),
    { storage: { size: "2000Mi" } },
    "spec.storage.size",
  ),
  update(
    "storage-class-change",
    spec({ storage: { size: "1Gi", storageClassName: "standard" } }),
    { storage: { size: "1Gi", storageClassName: "fast" } },
    "spec.storage.storageClassName",
  ),
  update(
    "storage-class-added",
    spec(),
    { storage: { size: "1Gi", storageClassName: "fast" } },
    "spec.storage.storageClassName",
  ),
  update("bootstrap-added", spec(), { bootstrap: recovery().bootstrap }, "spec.bootstrap"),
  update("bootstrap-removed", recovery(), { bootstrap: null }, "spec.bootstrap"),
  update(
    "bootstrap-changed",
    recovery(),
    { bootstrap: { recovery: { target: { immediate: true } } } },
    "spec.bootstrap",
  ),
  update(
    "image-other-major",
    spec({ image: "postgres:15" }),
    { image: "postgres:16" },
    "spec.image",
  ),
  update(
    "scale-below-quorum",
    spec({ instances: 3, postgresql: { synchronous: { mode: "quorum", number: 2 } } }),
    { instances: 2 },
    "spec.instances",
  ),
  update(
    "backup-volume-added",
    spec(),
    { backup: { volume: { size: "1Gi" } } },
    "spec.backup.volume",
  ),
  update("storage-grow-absurd", spec(), { storage: { size: "900Ei" } }, "spec.storage.size"),
  update("instances-zero", spec(), { instances: 0 }, "spec.instances"),
  update(
    "schedule-never",
    spec({ backup: { objectStore: STORE } }),
    { backup: { schedule: "0 0 30 2 *" } },
    "spec.backup.schedule",
  ),
];
