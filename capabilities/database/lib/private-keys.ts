/**
 * Private keys parsed once per PEM text. OpenSSL 3 takes about 0.4 ms to parse a PEM key, eight
 * times what generating an EC key takes: a pass that checks a Database's CA and leaves, and signs
 * with its CA, would parse the same few keys again and again. A key generated here is remembered
 * at once, so checking what was just issued parses nothing.
 *
 * Bounded (the oldest go first): a few thousand keys, a few MiB.
 */
import { KeyObject, createPrivateKey, createPublicKey } from "node:crypto";

const LIMIT = 4096;

interface Parsed {
  key: KeyObject;
  /** SubjectPublicKeyInfo DER, derived when first asked for. */
  publicKeyDer?: Buffer;
}

const byPem = new Map<string, Parsed>();

function remember(pem: string, parsed: Parsed): Parsed {
  if (byPem.size >= LIMIT) byPem.delete(byPem.keys().next().value as string);
  byPem.set(pem, parsed);
  return parsed;
}

const parsedOf = (pem: string): Parsed =>
  byPem.get(pem) ?? remember(pem, { key: createPrivateKey(pem) });

/** The key of a PEM text (PKCS#8 or any format OpenSSL reads). */
export const privateKeyOf = (pem: string): KeyObject => parsedOf(pem).key;

/** The SubjectPublicKeyInfo DER of a private key's PEM text. */
export function publicKeyDerOf(pem: string): Buffer {
  const parsed = parsedOf(pem);
  parsed.publicKeyDer ??= createPublicKey(parsed.key).export({ type: "spki", format: "der" });
  return parsed.publicKeyDer;
}

/** A key just generated, under its PEM text: nothing to parse when it is read back. */
export function rememberGenerated(pem: string, key: KeyObject, publicKeyDer: Buffer): void {
  remember(pem, { key, publicKeyDer });
}

/** How many keys are held (for tests and the bound). */
export const heldKeys = (): number => byPem.size;

export const KEY_LIMIT = LIMIT;
