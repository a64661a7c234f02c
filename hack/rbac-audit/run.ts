/**
 * Compares the operator's granted RBAC with what its identities used in audit logs, and fails
 * when a grant was never used or a use is not granted (compare.ts says why both matter); then
 * scope: each use of the installed operator (its ServiceAccount, running with production
 * settings) allowed in its namespace and by name, no ClusterRole grant used only in the
 * operator's own namespace, no Role grant unused in its namespace.
 *
 *   npx ts-node --transpile-only hack/rbac-audit/run.ts --granted rbac.json \
 *     --audit integration-audit.log --audit e2e-audit.log [--user NAME ...]
 *
 * --granted: a JSON list (or kubectl List) of the ClusterRoles and Roles bound to the operator.
 * Users default to the test identity of `pepr dev` and the deployed ServiceAccount. The test
 * identity's requests count for verbs only: its tests choose their own namespaces (a Lease in a
 * test namespace, for one).
 */
import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { compare, compareScope, grantsOf, PolicyRule, Use, useOf } from "./compare";

const OPERATOR_NAMESPACE = "pepr-system";
const INSTALLED = `system:serviceaccount:${OPERATOR_NAMESPACE}:pepr-pgkeeper`;
const DEFAULT_USERS = ["pgkeeper-operator", INSTALLED];

function args(argv: string[]): { granted: string[]; audit: string[]; users: string[] } {
  const out = { granted: [] as string[], audit: [] as string[], users: [] as string[] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--granted") out.granted.push(value);
    else if (flag === "--audit") out.audit.push(value);
    else if (flag === "--user") out.users.push(value);
    else throw new Error(`unknown flag ${flag}`);
  }
  if (out.granted.length === 0 || out.audit.length === 0)
    throw new Error("needs --granted and at least one --audit");
  return { ...out, users: out.users.length > 0 ? out.users : DEFAULT_USERS };
}

function rolesIn(file: string): unknown[] {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
  return Array.isArray(parsed) ? parsed : ((parsed as { items?: unknown[] }).items ?? [parsed]);
}

const rulesOf = (roles: unknown[]): PolicyRule[] =>
  roles.flatMap(item => (item as { rules?: PolicyRule[] }).rules ?? []);

/** Who made the request of an audit line useOf took (so it parses). */
const usernameOf = (line: string): string =>
  (JSON.parse(line) as { user?: { username?: string } }).user?.username ?? "";

/** Streams an audit log (it can be large): never read whole into memory. */
async function usesIn(
  file: string,
  users: ReadonlySet<string>,
): Promise<(Use & { user: string })[]> {
  const uses: (Use & { user: string })[] = [];
  const names = [...users];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    // Most lines are other users': skip them before parsing.
    if (!names.some(u => line.includes(u))) continue;
    const use = useOf(line, users);
    if (use) uses.push({ ...use, user: usernameOf(line) });
  }
  return uses;
}

async function main(): Promise<number> {
  const { granted, audit, users } = args(process.argv.slice(2));
  const roles = granted.flatMap(rolesIn);
  const userSet = new Set(users);
  const uses = (await Promise.all(audit.map(f => usesIn(f, userSet)))).flat();
  const result = compare(rulesOf(roles), uses);
  const installed = uses.filter(u => u.user === INSTALLED);
  const scope = compareScope(grantsOf(roles), installed, OPERATOR_NAMESPACE);
  console.log(`RBAC against use: ${uses.length} requests by ${users.join(", ")}`);
  for (const [key, n] of [...result.uses].sort()) console.log(`  used     ${key} (${n})`);
  for (const key of result.unused) console.log(`  UNUSED   ${key}: granted, never asked for`);
  for (const key of result.missing) console.log(`  MISSING  ${key}: asked for, not granted`);
  console.log(`Scope: ${installed.length} requests by ${INSTALLED}`);
  for (const use of scope.outOfScope) console.log(`  OUTSIDE  ${use}: not granted there`);
  for (const key of scope.wider) console.log(`  WIDER    ${key}: a Role there suffices`);
  for (const key of scope.unusedInScope)
    console.log(`  UNUSED   ${key}: granted there, never asked for`);
  const ok =
    result.unused.length === 0 &&
    result.missing.length === 0 &&
    installed.length > 0 &&
    Object.values(scope).every(list => list.length === 0);
  console.log(ok ? "RBAC matches use." : "RBAC does not match use.");
  return ok ? 0 : 1;
}

main().then(
  code => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  },
);
