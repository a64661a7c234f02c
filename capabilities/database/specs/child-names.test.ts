/**
 * Issue 14: a name admission accepts must fit every child's kind, Jobs included. A Database with
 * the longest allowed name and every optional child: each name within its kind's limit, every
 * label value within 63, the names the pods and Jobs get from their controllers too.
 */
import { MAX_NAME_LENGTH } from "../api/database-schema";
import { instanceName, LABEL_DATABASE } from "../api/names";
import { jobNameFor } from "../backup/backup-step";
import { scheduledBackup } from "../backup/scheduled-backups";
import { desiredChildren } from "./";
import { database, fixtureTls, input } from "../../../test/unit/builder-fixtures";
import { MAX_INSTANCES } from "../api/database-schema";

const LONGEST = `a${"b".repeat(MAX_NAME_LENGTH - 2)}z`;
const DNS_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Kubernetes' limit on each kind's names (Services are DNS-1035 labels). */
const NAME_LIMIT: Record<string, number> = {
  Secret: 253,
  ConfigMap: 253,
  Service: 63,
  StatefulSet: 63,
  PodDisruptionBudget: 253,
  NetworkPolicy: 253,
  ServiceAccount: 253,
};

const spec = {
  instances: MAX_INSTANCES,
  backup: {
    objectStore: { endpoint: "s3.example", bucket: "pg", credentials: { secretName: "s3" } },
    schedule: "0 3 * * *",
  },
  networkPolicy: { enabled: true },
};

function withName(): ReturnType<typeof input> {
  const built = input(spec);
  built.db.metadata!.name = LONGEST;
  return built;
}

const children = () =>
  desiredChildren(withName(), { superuser: "s", app: "a" }, { tls: fixtureTls() }, "pepr-system");

/** Every label value on an object and, for a StatefulSet, on its pod template. */
function labelValues(o: { metadata: { labels?: Record<string, string> }; spec?: unknown }) {
  const template = (o.spec as { template?: { metadata?: { labels?: Record<string, string> } } })
    ?.template?.metadata?.labels;
  return [...Object.values(o.metadata.labels ?? {}), ...Object.values(template ?? {})];
}

describe(`a Database named with the longest allowed name (${MAX_NAME_LENGTH})`, () => {
  it.each(children().map(o => [`${o.kind}/${o.metadata.name}`, o] as const))(
    "%s fits its kind and its labels fit",
    (_, o) => {
      expect(NAME_LIMIT[o.kind]).toBeDefined();
      expect(o.metadata.name.length).toBeLessThanOrEqual(NAME_LIMIT[o.kind]);
      if (o.kind === "Service") expect(o.metadata.name).toMatch(DNS_LABEL);
      for (const value of labelValues(o)) expect(value.length).toBeLessThanOrEqual(63);
    },
  );

  it("gives pods names and controller-revision-hash labels that fit (hostnames, label values)", () => {
    // The StatefulSet controller labels pods `<statefulset>-<10-character hash>`.
    const revision = `${LONGEST}-${"f".repeat(10)}`;
    expect(revision.length).toBeLessThanOrEqual(63);
    const pod = instanceName(LONGEST, MAX_INSTANCES - 1);
    expect(pod).toMatch(DNS_LABEL);
    // The instance's DNS name in the backup certificates: every label of it a DNS label.
    for (const label of `${pod}.${LONGEST}-hl.shop.svc`.split("."))
      expect(label).toMatch(DNS_LABEL);
  });

  it("gives scheduled Backups and their Jobs names that fit a label value", () => {
    const db = database(spec);
    db.metadata!.name = LONGEST;
    const backup = scheduledBackup(db, "0 3 * * *", new Set(), new Date("2026-12-03T03:05:00Z"));
    const name = backup!.metadata!.name!;
    expect(name.length).toBeLessThanOrEqual(63);
    expect(jobNameFor(name)).toBe(name);
    expect(backup!.metadata!.labels![LABEL_DATABASE]).toBe(LONGEST);
  });

  it("shortens the Job of a user's long Backup name to a label value, keeping it unique", () => {
    const long = `${LONGEST}-before-the-upgrade-to-seventeen-on-tuesday`;
    const a = jobNameFor(long);
    const b = jobNameFor(`${long}-again`);
    expect(a.length).toBeLessThanOrEqual(63);
    expect(a).toMatch(DNS_LABEL);
    expect(a).not.toBe(b);
  });
});
