import { compareQuantities } from "../../lib/quantity";
import { deny, Rule } from "./types";
import { quantityBelow, shown, sizeError } from "./util";

/**
 * Smallest data volume we accept. A fresh cluster takes ~40 MiB, PostgreSQL keeps at least
 * min_wal_size (80 MB) of WAL even when idle and writes 16 MiB segments: below this the disk
 * fills on the first bulk write and PostgreSQL stops with "No space left on device".
 */
const MIN_STORAGE_SIZE = "256Mi";

export const storageSizeRule: Rule = {
  name: "storage-size",
  check: ({ db }) => {
    const { size } = db.spec.storage;
    const error = sizeError(size);
    if (error !== undefined) return [deny("spec.storage.size", error)];
    if (compareQuantities(size, MIN_STORAGE_SIZE) < 0) {
      return [
        deny(
          "spec.storage.size",
          `${size} is too small; at least ${MIN_STORAGE_SIZE} (room for the data files and the WAL PostgreSQL keeps)`,
        ),
      ];
    }
    return [];
  },
};

export const storageShrinkRule: Rule = {
  name: "storage-shrink",
  check: ({ db, old }) => {
    const size = db.spec.storage.size;
    const before = old?.spec.storage.size;
    if (!quantityBelow(size, before)) return [];
    return [
      deny("spec.storage.size", `cannot shrink from ${before} to ${size}; storage can only grow`),
    ];
  },
};

export const storageClassImmutableRule: Rule = {
  name: "storage-class-immutable",
  check: ({ db, old }) => {
    const now = db.spec.storage.storageClassName;
    const before = old?.spec.storage.storageClassName;
    if (!old || now === before) return [];
    return [
      deny(
        "spec.storage.storageClassName",
        `cannot change from ${shown(before)} to ${shown(now)}; it is fixed after creation (existing volumes cannot move to another class)`,
      ),
    ];
  },
};
