/**
 * spec.bootstrap: restore (replaced, refused by name), and recovery: the source's store and
 * repository path (the CRD's shape <prefix>/<namespace>/<name>/<uid>), the backup label, the
 * target (exactly one kind; RFC 3339 times as kube-openapi's date-time format reads them), and
 * what admission reads from the cluster (the store's Secrets, a source of another major).
 */
import type { ClusterView } from "./cluster";
import { Judge } from "./judge";
import { bool, int, obj, required, str } from "./read";
import { judgeStore, StoreSecrets } from "./store";

const R = "spec.bootstrap.recovery";
const REPOSITORY_PATH =
  /^(\/[A-Za-z0-9._-]+)*\/[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z]([-a-z0-9]{0,48}[a-z0-9])?\/[0-9a-f]([-0-9a-f]{0,34}[0-9a-f])?$/;
const BACKUP_SET = /^[0-9]{8}-[0-9]{6}F(_[0-9]{8}-[0-9]{6}[DI])?$/;

/**
 * A date-time the apiserver takes where CEL rules read the object (target has some): the
 * schema's format check (kube-openapi strfmt.IsDateTime: a real date, 't', hh:mm:ss[.frac],
 * z or ±hh:mm, case-insensitive) and then CEL's conversion to a timestamp (strfmt.ParseDateTime:
 * Go's RFC 3339 layouts, case-sensitive 'T' and 'Z', an offset below 24:00).
 */
export function isDateTime(s: string): boolean {
  const parts = s.toLowerCase().split("t");
  if (s.length < 4 || parts.length < 2) return false;
  const d = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(parts[0]);
  if (!d) return false;
  const [year, month, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate())
    return false;
  const t = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(
    parts[1],
  );
  if (!t || t[1] > "23" || t[2] > "59" || t[3] > "59") return false;
  const go = /^[0-9-]{10}T[0-9:]{8}([.,][0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/.exec(s);
  return go !== null && (go[3] ?? "00") <= "23" && (go[4] ?? "00") <= "59";
}

/** A pgBackRest label's timestamps (yyyymmdd-hhmmss) must be real ones to name any backup. */
function impossibleLabel(label: string): boolean {
  return [...label.matchAll(/([0-9]{4})([0-9]{2})([0-9]{2})-([0-9]{2})([0-9]{2})([0-9]{2})/g)].some(
    ([, y, mo, d, h, mi, s]) => !isDateTime(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`) || Number(y) < 1970,
  );
}

function judgeTarget(j: Judge, v: unknown): void {
  const f = `${R}.target`;
  const o = obj(j, v, f);
  if (!o) return;
  const kinds = ["time", "lsn", "xid", "name", "immediate"].filter(k => o[k] !== undefined);
  if (kinds.length !== 1) j.bad(f, "takes exactly one of time, lsn, xid, name, immediate", "crd");
  const time = str(j, o.time, `${f}.time`);
  if (time !== undefined && !isDateTime(time)) j.bad(`${f}.time`, "not a date-time", "crd");
  str(j, o.lsn, `${f}.lsn`, { pattern: /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/ });
  int(j, o.xid, `${f}.xid`, 3, 4294967295);
  str(j, o.name, `${f}.name`, { min: 1, max: 63, pattern: /^[^'\\\n]+$/ });
  if (bool(j, o.immediate, `${f}.immediate`) === false)
    j.bad(`${f}.immediate`, "can only be true", "crd");
}

function repositoryPath(j: Judge, v: unknown): string | undefined {
  const f = `${R}.source.repositoryPath`;
  const s = str(j, v, f, { min: 2, max: 1024, pattern: REPOSITORY_PATH });
  if (s !== undefined && /\/\.\.\/|\/\.\//.test(s))
    return void j.bad(f, "a . or .. segment", "crd");
  return s;
}

/** The source reads admission makes on create; undecidable without a view of the cluster. */
function judgeReads(
  j: Judge,
  [path, secrets]: [string | undefined, StoreSecrets],
  version: string | undefined,
  cluster: ClusterView | undefined,
): void {
  const S = `${R}.source`;
  if (!cluster) return j.unsure(S, "needs the cluster: the store's Secrets, the source's major");
  const store = `${S}.objectStore`;
  if (secrets.credentials && !cluster.secrets.has(secrets.credentials))
    j.bad(`${store}.credentials.secretName`, "no such Secret in the namespace", "doc");
  if (secrets.ca && !cluster.secrets.has(secrets.ca))
    j.bad(`${store}.ca.secretName`, "no such Secret in the namespace", "doc");
  if (path === undefined || version === undefined) return;
  const [ns, name, uid] = path.split("/").slice(-3);
  const source = cluster.databases.get(`${ns}/${name}`);
  if (source && source.uid === uid && source.version !== version)
    j.bad(`${S}.repositoryPath`, `the source is version ${source.version}`, "doc");
}

function judgeRecovery(
  j: Judge,
  v: unknown,
  version: string | undefined,
  cluster: ClusterView | undefined,
): void {
  const o = obj(j, v, R);
  if (!o) return;
  required(j, o, R, ["source"]);
  const source = obj(j, o.source, `${R}.source`);
  if (source) {
    required(j, source, `${R}.source`, ["objectStore", "repositoryPath"]);
    const secrets =
      source.objectStore === undefined
        ? {}
        : judgeStore(j, source.objectStore, `${R}.source.objectStore`, true);
    const path = repositoryPath(j, source.repositoryPath);
    judgeReads(j, [path, secrets], version, cluster);
  }
  const label = str(j, o.backupSet, `${R}.backupSet`, { max: 64, pattern: BACKUP_SET });
  if (label !== undefined && impossibleLabel(label))
    j.unsure(`${R}.backupSet`, "a label with an impossible date: no backup has it");
  if (o.target !== undefined) judgeTarget(j, o.target);
}

export function judgeBootstrap(
  j: Judge,
  bootstrap: unknown,
  version: string | undefined,
  cluster: ClusterView | undefined,
): void {
  const o = obj(j, bootstrap, "spec.bootstrap");
  if (!o) return;
  if (o.restore !== undefined) j.bad("spec.bootstrap.restore", "replaced by recovery", "crd");
  if (o.recovery !== undefined) judgeRecovery(j, o.recovery, version, cluster);
}
