/**
 * The passwords step: the credentials Secrets against the passwords PostgreSQL has
 * (passwords.ts), edits applied to PostgreSQL (rotate-passwords.ts), and the passwords in use
 * remembered for the next pass (a Secret deleted later is put back from them).
 */
import { childNames } from "../api/names";
import { targetsFor } from "../instance/targets";
import { ReconcileError } from "../lib/errors";
import { operatorTls } from "../pki/operator-tls";
import type { Pass, StepResult } from "./pass";
import { ensurePasswords, generatePassword, passwordsOrError } from "./passwords";
import { primaryOf } from "./pods";
import { rotatePasswords } from "./rotate-passwords";

/** Where a rotation logs in: each login says its own password (the previous one is known there). */
async function rotationTargets({ deps, db, pods }: Pass) {
  const tls = deps.instances ? await operatorTls(deps.cluster, db) : undefined;
  const headless = childNames(db.metadata?.name ?? "").headlessService;
  return targetsFor(pods, { password: "", ...(tls ? { tls } : {}) }, headless);
}

/**
 * The passwords in use, after applying those edited in their Secret to PostgreSQL. Both, or the
 * failure that keeps the children from being applied: an unknown password, or an edit not yet in
 * PostgreSQL (the Secret keeps it). The superuser's stands alone: HA needs only that one.
 */
export async function passwordsStep(pass: Pass): Promise<StepResult> {
  const { deps, db, pods, key } = pass;
  const stored = await ensurePasswords(
    deps.cluster,
    db,
    deps.newPassword ?? generatePassword,
    deps.passwords?.of(key),
  );
  const { found, failures } = await rotatePasswords(
    {
      cluster: deps.cluster,
      db,
      sql: deps.instances?.sql,
      pods,
      primary: primaryOf(db),
      target: await rotationTargets(pass),
    },
    stored,
  );
  const passwords = passwordsOrError(found);
  const known = { superuser: found.superuser, restored: found.restored };
  if (passwords instanceof ReconcileError) return { found: known, failure: passwords };
  deps.passwords?.remember(key, passwords);
  if (failures.length > 0) {
    const failure = new ReconcileError("PasswordRotationFailed", `Rotating ${failures.join("; ")}`);
    return { found: known, failure };
  }
  return { found: { ...known, passwords } };
}
