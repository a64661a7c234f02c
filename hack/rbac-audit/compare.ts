/**
 * RBAC against use (issue 15): what the operator's ClusterRole and Roles grant, expanded to
 * (API group, resource, verb), beside what the operator's identities asked the apiserver for in
 * the audit log. A grant nothing used is power the operator does not need; a use nothing grants
 * is a request that fails once the operator runs with its ServiceAccount instead of the test
 * identity. Pure: the CLI (run.ts) reads the files.
 */

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** One request, as the audit log's objectRef and verb say. */
export interface Use {
  group: string;
  /** `resource` or `resource/subresource`. */
  resource: string;
  verb: string;
  namespace?: string;
  name?: string;
  /** A server-side apply that created the object (201): the apiserver also authorizes `create`. */
  created?: boolean;
}

/** A grant or a use, as `group resource verb` (core group written `core`). */
export type Key = string;

export const keyOf = (group: string, resource: string, verb: string): Key =>
  `${group === "" ? "core" : group} ${resource} ${verb}`;

/** Every (group, resource, verb) a rule set grants; a wildcard stays a wildcard. */
export function granted(rules: readonly PolicyRule[]): Set<Key> {
  return new Set(
    rules.flatMap(rule =>
      (rule.apiGroups ?? [""]).flatMap(group =>
        (rule.resources ?? []).flatMap(resource =>
          rule.verbs.map(verb => keyOf(group, resource, verb)),
        ),
      ),
    ),
  );
}

/** Whether `key` is covered by `grants`, wildcards included. */
function covers(grants: Set<Key>, key: Key): boolean {
  const [group, resource, verb] = key.split(" ");
  const groups = [group, "*"];
  const resources = [resource, "*"];
  const verbs = [verb, "*"];
  return groups.some(g => resources.some(r => verbs.some(v => grants.has(`${g} ${r} ${v}`))));
}

/**
 * Requests a test identity makes that the deployed operator never does: under `npx pepr dev`,
 * Pepr registers its webhook configurations and the pepr-system namespace itself, which
 * `pepr deploy` (an administrator) does in a cluster. Each with the reason it is not the
 * operator's.
 */
export const DEV_MODE_ONLY: ReadonlyMap<Key, string> = new Map([
  ...["create", "get", "patch", "update", "delete"].flatMap(verb => [
    [
      keyOf("admissionregistration.k8s.io", "mutatingwebhookconfigurations", verb),
      "pepr dev registers the webhooks; pepr deploy does in a cluster",
    ] as const,
    [
      keyOf("admissionregistration.k8s.io", "validatingwebhookconfigurations", verb),
      "pepr dev registers the webhooks; pepr deploy does in a cluster",
    ] as const,
    [
      keyOf("", "namespaces", verb),
      "pepr dev applies pepr-system; pepr deploy does in a cluster",
    ] as const,
  ]),
  // Creating CRDs is the operator's own now (its leader installs pgkeeper's, by name): the
  // PeprStore CRD pepr dev creates counts as a use of that grant like any other.
]);

export interface Comparison {
  /** Granted, never used: remove. */
  unused: Key[];
  /** Used, not granted: the deployed operator would be refused. */
  missing: Key[];
  /** How often each used key was asked for. */
  uses: Map<Key, number>;
}

export function compare(rules: readonly PolicyRule[], uses: Iterable<Use>): Comparison {
  const grants = granted(rules);
  const counted = new Map<Key, number>();
  for (const use of uses) {
    const verbs = use.created ? [use.verb, "create"] : [use.verb];
    for (const verb of verbs) {
      const key = keyOf(use.group, use.resource, verb);
      if (DEV_MODE_ONLY.has(key)) continue;
      counted.set(key, (counted.get(key) ?? 0) + 1);
    }
  }
  const usedKeys = new Set(counted.keys());
  const unused = [...grants].filter(k => !k.includes("*") && !usedKeys.has(k)).sort();
  const missing = [...usedKeys].filter(k => !covers(grants, k)).sort();
  return { unused, missing, uses: counted };
}

interface AuditLine {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  responseStatus?: { code?: number };
  objectRef?: {
    apiGroup?: string;
    resource?: string;
    subresource?: string;
    namespace?: string;
    name?: string;
  };
}

function parsed(line: string): AuditLine | undefined {
  try {
    return JSON.parse(line) as AuditLine;
  } catch {
    return undefined; // a line torn by a rotation or a crash
  }
}

/** The use an audit line records for one of `users`, or undefined (other users, stages, URLs). */
export function useOf(line: string, users: ReadonlySet<string>): Use | undefined {
  const event = parsed(line);
  if (!event || !isOperatorResourceRequest(event, users)) return undefined;
  const ref = event.objectRef as Required<AuditLine>["objectRef"] & { resource: string };
  const verb = event.verb as string;
  const use: Use = {
    group: ref.apiGroup ?? "",
    resource: ref.subresource ? `${ref.resource}/${ref.subresource}` : ref.resource,
    verb,
  };
  if (ref.namespace) use.namespace = ref.namespace;
  if (ref.name) use.name = ref.name;
  if (verb === "patch" && event.responseStatus?.code === 201) use.created = true;
  return use;
}

/** A finished request for a resource (not a URL such as /healthz) by one of `users`. */
const isOperatorResourceRequest = (event: AuditLine, users: ReadonlySet<string>): boolean =>
  event.stage === "ResponseComplete" &&
  Boolean(event.objectRef?.resource) &&
  Boolean(event.verb) &&
  users.has(event.user?.username ?? "");

/** A rule and where it applies: a Role's namespace, or (undefined) the whole cluster. */
export interface Grant {
  rule: PolicyRule;
  namespace?: string;
}

/** The grants of a list of ClusterRoles and Roles (a Role applies in its own namespace only). */
export function grantsOf(roles: readonly unknown[]): Grant[] {
  return roles.flatMap(item => {
    const role = item as { kind?: string; metadata?: { namespace?: string }; rules?: PolicyRule[] };
    const namespace = role.kind === "Role" ? (role.metadata?.namespace ?? "") : undefined;
    return (role.rules ?? []).map(rule =>
      namespace === undefined ? { rule } : { rule, namespace },
    );
  });
}

const matches = (granted: readonly string[] | undefined, value: string, fallback = ""): boolean =>
  (granted ?? [fallback]).some(g => g === value || g === "*");

/** Whether `grant` allows `verb` of `use`: its group, resource, verb, namespace and names. */
function allows(grant: Grant, use: Use, verb: string): boolean {
  const { rule, namespace } = grant;
  if (namespace !== undefined && use.namespace !== namespace) return false;
  if (!matches(rule.apiGroups, use.group) || !matches(rule.resources, use.resource)) return false;
  if (!matches(rule.verbs, verb)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (use.name !== undefined && names.includes(use.name));
}

export interface ScopeComparison {
  /** Granted for the verb, but not where it was asked for (namespace or name). */
  outOfScope: string[];
  /** Granted cluster-wide for a namespaced resource, used only in the operator's namespace. */
  wider: string[];
  /** A Role's grant never used in its namespace. */
  unusedInScope: string[];
}

const where = (use: Use): string =>
  `${use.namespace ? `in ${use.namespace}` : "cluster-wide"}${use.name ? ` (${use.name})` : ""}`;

/**
 * Scope as well as verbs: each use allowed where it happened; no ClusterRole grant whose every
 * use was in the operator's own namespace (a Role there does); no Role grant unused there.
 */
export function compareScope(
  grants: readonly Grant[],
  uses: readonly Use[],
  operatorNamespace: string,
): ScopeComparison {
  const asked = uses.flatMap(use =>
    (use.created ? [use.verb, "create"] : [use.verb])
      .filter(verb => !DEV_MODE_ONLY.has(keyOf(use.group, use.resource, verb)))
      .map(verb => ({ use, verb })),
  );
  const outOfScope = new Set<string>();
  for (const { use, verb } of asked) {
    if (!grants.some(g => allows(g, use, verb))) {
      outOfScope.add(`${keyOf(use.group, use.resource, verb)} ${where(use)}`);
    }
  }
  const keysOf = (g: Grant): [string, string, string][] =>
    (g.rule.apiGroups ?? [""]).flatMap(group =>
      (g.rule.resources ?? []).flatMap(resource =>
        g.rule.verbs.map(verb => [group, resource, verb] as [string, string, string]),
      ),
    );
  const wider = new Set<string>();
  const unusedInScope = new Set<string>();
  for (const grant of grants) {
    for (const [group, resource, verb] of keysOf(grant)) {
      if ([group, resource, verb].includes("*")) continue;
      const usedHere = asked.filter(
        a =>
          a.verb === verb &&
          a.use.group === group &&
          a.use.resource === resource &&
          allows({ ...grant, rule: { ...grant.rule, verbs: [verb] } }, a.use, verb),
      );
      const key = keyOf(group, resource, verb);
      if (grant.namespace !== undefined && usedHere.length === 0) {
        unusedInScope.add(`${key} in ${grant.namespace}`);
      }
      if (
        grant.namespace === undefined &&
        usedHere.length > 0 &&
        usedHere.every(a => a.use.namespace === operatorNamespace)
      ) {
        wider.add(`${key}: granted cluster-wide, used only in ${operatorNamespace}`);
      }
    }
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    outOfScope: sorted(outOfScope),
    wider: sorted(wider),
    unusedInScope: sorted(unusedInScope),
  };
}
