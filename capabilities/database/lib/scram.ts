/**
 * SCRAM-SHA-256 verifiers as PostgreSQL stores them (RFC 5802/7677, PostgreSQL's
 * scram_build_secret), computed here so ALTER ROLE ... PASSWORD carries a verifier and never the
 * password itself: nothing the server logs or shows in pg_stat_activity can reveal it.
 *
 * PostgreSQL normalizes a password with SASLprep first. For printable ASCII that is the identity;
 * anything else is refused here rather than risk a verifier the server would not match.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/** PostgreSQL's default scram_iterations. */
export const SCRAM_ITERATIONS = 4096;

/** Why `password` cannot be set through a verifier computed here, or undefined when it can. */
export function unsupportedPassword(password: string): string | undefined {
  if (password.length === 0) return "it is empty";
  if (!/^[\x20-\x7e]+$/.test(password))
    return "it has characters outside printable ASCII, which PostgreSQL normalizes (SASLprep) before hashing";
  return undefined;
}

export function scramVerifier(
  password: string,
  salt: Buffer = randomBytes(16),
  iterations = SCRAM_ITERATIONS,
): string {
  const problem = unsupportedPassword(password);
  if (problem) throw new Error(`the password cannot be used: ${problem}`);
  const salted = pbkdf2Sync(Buffer.from(password, "utf8"), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  const b64 = (b: Buffer): string => b.toString("base64");
  return `SCRAM-SHA-256$${iterations}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}

/** A fingerprint of a password, for the annotation on its own Secret (as readable as the password). */
export const passwordFingerprint = (password: string): string =>
  createHash("sha256").update(password, "utf8").digest("hex");
