/**
 * The kinds the operator's informers watch, as pgkeeper_informer_synced labels them: every child
 * kind and Backups (capabilities/database/cache/informers.ts starts one per CHILD_KINDS entry and
 * one for BACKUP_REF). Taken from the same lists, so a kind added there is waited for here too:
 * a hard-coded count (8) outlived the kinds it counted and made bench:scale wait forever.
 */
import { BACKUP_KIND_KEY, CHILD_KINDS, kindKeyOf } from "../../capabilities/database/api/kinds";

export const INFORMER_KINDS: readonly string[] = [...CHILD_KINDS.map(kindKeyOf), BACKUP_KIND_KEY];

/** The kinds a scrape of the operator's metrics shows synced. */
function syncedKinds(scrape: string): Set<string> {
  const synced = new Set<string>();
  for (const m of scrape.matchAll(/^pgkeeper_informer_synced\{[^}]*kind="([^"]+)"[^}]*\}\s+1$/gm))
    synced.add(m[1]);
  return synced;
}

/** The informers' kinds not yet synced in `scrape` (none: the cache is complete). */
export const unsyncedKinds = (scrape: string): string[] => {
  const synced = syncedKinds(scrape);
  return INFORMER_KINDS.filter(k => !synced.has(k));
};
