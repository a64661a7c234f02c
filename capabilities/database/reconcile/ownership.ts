import { Database } from "../api/database";
import { KubeObject } from "../cluster/cluster";

/** True when `obj` is controlled by this very Database (same uid, not just the same name). */
export const isOwnedBy = (obj: KubeObject, db: Database): boolean =>
  (obj.metadata?.ownerReferences ?? []).some(
    r => r.uid === db.metadata?.uid && r.controller === true,
  );
