/**
 * Who owns the fields pgkeeper sets. Every write names one field manager. An object pgkeeper
 * created (a POST: one request, and it fails when the name is taken) is recorded as that manager's
 * "Update"; an apply only removes fields its own "Apply" entry owns. So before the first apply to
 * an object it created, pgkeeper turns its create-time entry into an apply entry
 * (Cluster.adoptCreatedFields), and every later apply removes what the new spec dropped, as if
 * the object had been applied from the start.
 */
import { KubeObject, ManagedFieldsEntry } from "./objects";

/** "pepr" (KFC's): objects written by earlier versions keep one owner. */
export const FIELD_MANAGER = "pepr";

const isOurs = (entry: ManagedFieldsEntry, operation: string): boolean =>
  entry.manager === FIELD_MANAGER && entry.operation === operation && !entry.subresource;

/**
 * The position of our create-time entry in `obj`'s managedFields, when the fields it holds are
 * not yet an apply's; undefined when an apply may go ahead as it is.
 */
export function createdFieldsEntry(obj: KubeObject): number | undefined {
  const entries = obj.metadata?.managedFields ?? [];
  if (entries.some(e => isOurs(e, "Apply"))) return undefined;
  const index = entries.findIndex(e => isOurs(e, "Update"));
  return index >= 0 ? index : undefined;
}

/**
 * managedFields without the field sets and times: often a third of an object's size, and all
 * pgkeeper reads of them is who wrote with which operation (createdFieldsEntry). Positions are
 * kept: adoptCreatedFields names an entry by its position.
 */
export const compactManagedFields = (
  entries: ManagedFieldsEntry[] | undefined,
): ManagedFieldsEntry[] | undefined =>
  entries?.map(({ manager, operation, subresource }) => ({
    manager,
    operation,
    ...(subresource ? { subresource } : {}),
  }));
