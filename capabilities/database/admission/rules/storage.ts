import { MAX_STORAGE_SIZE } from "../../api/database-schema";
import { compareQuantities } from "../../lib/quantity";
import { isDnsSubdomain } from "./labels";
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
    if (compareQuantities(size, MAX_STORAGE_SIZE) > 0) {
      return [
        deny(
          "spec.storage.size",
          `${size} is too large; at most ${MAX_STORAGE_SIZE} (the largest volume cloud providers offer)`,
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

/** A StorageClass name is a DNS subdomain; any other name can only fail at the volume claim. */
export const storageClassNameRule: Rule = {
  name: "storage-class-name",
  check: ({ db }) => {
    const name = db.spec.storage.storageClassName;
    if (name === undefined || isDnsSubdomain(name)) return [];
    return [
      deny(
        "spec.storage.storageClassName",
        `${JSON.stringify(name)} is not a StorageClass name (lowercase letters, digits, '-' and '.', at most 253)`,
      ),
    ];
  },
};
