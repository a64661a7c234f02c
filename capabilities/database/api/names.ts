/**
 * Names and labels of everything pgkeeper creates: the only place they are spelled out.
 */
export const LABEL_DATABASE = "pgkeeper.dev/database";
export const LABEL_ROLE = "pgkeeper.dev/role";
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const LABEL_NAME = "app.kubernetes.io/name";
const LABEL_INSTANCE_OF = "app.kubernetes.io/instance";
export const LABEL_COMPONENT = "app.kubernetes.io/component";
export const MANAGER = "pgkeeper";

/**
 * The StatefulSet's claim template, so each instance's data claim is `pgdata-<db>-<ordinal>`
 * (the pods mount it as the volume of this name too).
 */
export const DATA_VOLUME = "pgdata";
export const dataClaimPrefix = (db: string): string => `${DATA_VOLUME}-${db}-`;
/** An instance's data claim of this Database (`pgdata-orders-0`; not `pgdata-orders-archive-0`). */
export const isDataClaimOf = (db: string, claim: string): boolean =>
  claim.startsWith(dataClaimPrefix(db)) && /^\d+$/.test(claim.slice(dataClaimPrefix(db).length));

export const ANNOTATION_CONFIG_HASH = "pgkeeper.dev/config-hash";
/**
 * On a credentials Secret: the SHA-256 of the password PostgreSQL has. A Secret whose password no
 * longer matches was edited: a rotation (reconcile/passwords.ts).
 */
export const ANNOTATION_PASSWORD_SHA256 = "pgkeeper.dev/password-sha256";
/**
 * On `<db>-backup-tls` while the backup certificates move to another CA (the Database's one CA,
 * for a Database from before it): when the last step of the move began (pki/backup-tls.ts).
 */
export const ANNOTATION_TRUST_CHANGED_AT = "pgkeeper.dev/trust-changed-at";

/**
 * Set on a Database to request a switchover: the value is the instance to promote, or `auto` for
 * the healthiest replica. pgkeeper removes it when the switchover is done (or refused, with an
 * Event saying why).
 */
export const ANNOTATION_SWITCHOVER = "pgkeeper.dev/switchover-to";

/**
 * Set on a Database (any value, a time for instance) to restart every instance once, as a
 * template change rolls out: replicas first, then a switchover, then the old primary. pgkeeper
 * removes it when the last instance is back (status.restart).
 */
export const ANNOTATION_RESTART = "pgkeeper.dev/restart";
/** On the pod template: status.restart.requestedAt, whose change rolls every instance. */
export const ANNOTATION_RESTARTED_AT = "pgkeeper.dev/restarted-at";

/** Role label values: `<db>-rw` selects the primary, `<db>-ro` the replicas that serve reads. */
export const ROLE_PRIMARY = "primary";
export const ROLE_REPLICA = "replica";
export type Role = typeof ROLE_PRIMARY | typeof ROLE_REPLICA;
/** A replica that must not serve reads (not streaming, diverged, too far behind). */
export const ROLE_REPLICA_NOT_SERVING = "replica-not-serving";

export const childNames = (db: string) =>
  ({
    statefulSet: db,
    superuserSecret: `${db}-superuser`,
    appSecret: `${db}-app`,
    backupTlsSecret: `${db}-backup-tls`,
    /** The Database's CA (key included) and the operator's client certificate: never mounted. */
    caSecret: `${db}-ca`,
    /** What the instances mount: the CA certificate, the server's and replication's certificates. */
    tlsSecret: `${db}-tls`,
    configMap: `${db}-config`,
    topologyConfigMap: `${db}-topology`,
    rwService: `${db}-rw`,
    roService: `${db}-ro`,
    headlessService: `${db}-hl`,
    pdbPrimary: `${db}-primary`,
    pdbReplicas: `${db}-replicas`,
    /** Ingress to the instances (spec.networkPolicy): the Database's own name, in its own kind. */
    networkPolicy: db,
    /** What the instances and backup Jobs run as (never the namespace's `default`). */
    serviceAccount: `${db}-postgres`,
    /** Made by earlier versions (backup.volume, removed): only ever deleted. */
    legacyBackupCronJob: `${db}-backup`,
  }) as const;

export type ChildNames = ReturnType<typeof childNames>;

/** Pod name of instance `ordinal` (StatefulSet naming). */
export const instanceName = (db: string, ordinal: number): string => `${db}-${ordinal}`;

/** The ordinal of an instance (`orders-2` → 2). */
export const ordinalOf = (instance: string): number =>
  Number(instance.slice(instance.lastIndexOf("-") + 1));

/** A Database's key in queues, caches and memories: `namespace/name`. */
export const databaseKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export const splitDatabaseKey = (key: string): { namespace: string; name: string } => {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
};

/** Labels every child carries; selectors use the subset in `selectorLabels`. */
export const commonLabels = (db: string): Record<string, string> => ({
  [LABEL_DATABASE]: db,
  [LABEL_NAME]: "postgresql",
  [LABEL_INSTANCE_OF]: db,
  [LABEL_MANAGED_BY]: MANAGER,
});

/** The stable subset used in selectors (StatefulSet selectors are immutable: never change these). */
export const selectorLabels = (db: string): Record<string, string> => ({
  [LABEL_DATABASE]: db,
  [LABEL_COMPONENT]: "instance",
});
