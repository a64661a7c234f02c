/**
 * How to read a child pgkeeper labels before building it (a credentials or TLS Secret). The cache
 * holds every labelled child of a known Database, so a miss means absent, or present without our
 * label (someone else's, or ours with its label removed by hand).
 * - A Database that never held data: trust the miss. A name taken by someone else is found by
 *   the create (convergeChild), which fails on it: one request saved per child, on every new
 *   Database.
 * - Once it held data: ask the apiserver, so that a label removed by hand never makes pgkeeper
 *   build new credentials or a new CA beside the ones in use (a miss there is rare).
 */
import { Database } from "../api/database";

export const ownChildRead = (db: Database): { missingIsAbsent: boolean } => ({
  missingIsAbsent: db.status?.initializedAt === undefined,
});
