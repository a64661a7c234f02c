/**
 * The vocabulary of admission rules: a rule reads a Database (already checked to match the
 * schema's types) and returns denials, each naming the field and saying what is allowed.
 */
import { DatabaseSpec } from "../../api/database-schema";
import { OperatorConfig } from "../../lib/config";

/** One reason to refuse a Database. `field` is a path such as `spec.storage.size`. */
export interface Denial {
  field: string;
  message: string;
}

/** A Database whose types match the schema (see shape.ts); values are not checked yet. */
export interface CheckedDatabase {
  metadata: { name?: string };
  spec: DatabaseSpec;
  /** What transition rules read of the stored object's status (the data's major, an upgrade). */
  status?: { version?: string; upgrade?: { phase?: string; to?: string } };
}

export interface RuleContext {
  db: CheckedDatabase;
  /** The stored object on UPDATE; undefined on CREATE or when it does not match the schema. */
  old?: CheckedDatabase;
  config: OperatorConfig;
}

/**
 * A named rule. The name is explicit (not `fn.name`) because the bundle may be minified, and a
 * rule that throws is reported by this name.
 */
export interface Rule {
  name: string;
  check: (ctx: RuleContext) => Denial[];
}

export const deny = (field: string, message: string): Denial => ({ field, message });
