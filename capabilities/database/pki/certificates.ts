/**
 * The CA of a Database and the leaves it signs: `ensureCa` keeps the stored CA while it can go on
 * signing and makes a new one otherwise; `ensureLeaf` keeps a stored leaf while it is sound and
 * issues it anew otherwise, by the one policy of policy.ts. Pure but for key generation.
 */
import { X509Certificate } from "node:crypto";
import { publicKeyDerOf } from "../lib/private-keys";
import { certificate, newKeyPair } from "../lib/x509";
import {
  CA_LIFETIME_DAYS,
  DAY_MS,
  LEAF_LIFETIME_DAYS,
  RENEW_BEFORE_DAYS,
  endsWithin,
  notBeforeFor,
} from "./policy";

export interface KeyPair {
  cert: string;
  key: string;
}

/** A CA that can sign: its certificate, its key, and the name leaves carry as their issuer. */
export interface Ca extends KeyPair {
  name: string;
  x509: X509Certificate;
}

/** What a leaf says: its common name (a client's is its role) and, for a server, its names. */
export interface LeafSpec {
  commonName: string;
  dnsNames?: string[];
}

const caName = (db: string): string => `pgkeeper ${db} CA`;

export function issueCa(db: string, now: Date): Ca {
  const pair = newKeyPair();
  const name = caName(db);
  const cert = certificate({
    commonName: name,
    isCA: true,
    notBefore: notBeforeFor(now),
    notAfter: new Date(now.getTime() + CA_LIFETIME_DAYS * DAY_MS),
    publicKeyDer: pair.publicKeyDer,
    selfKey: pair.key,
  });
  return { cert, key: pair.key, name, x509: new X509Certificate(cert) };
}

export function keyMatches(key: string, cert: X509Certificate): boolean {
  return publicKeyDerOf(key).equals(cert.publicKey.export({ type: "spki", format: "der" }));
}

/** Why the stored CA cannot go on signing (undefined: it can). */
export function caProblem(
  cert: string | undefined,
  key: string | undefined,
  now: Date,
): string | undefined {
  if (!cert || !key) return "no CA";
  try {
    const parsed = new X509Certificate(cert);
    if (!parsed.ca || !keyMatches(key, parsed)) return "the CA's key does not match it";
    // A year left: every leaf it signs must still get its full year.
    if (endsWithin(parsed.validTo, now, LEAF_LIFETIME_DAYS)) return `the CA ends ${parsed.validTo}`;
    return undefined;
  } catch (err) {
    return `the CA does not parse (${(err as Error).message})`;
  }
}

/** The stored CA while it can go on signing, else a new one. */
export function ensureCa(db: string, stored: Partial<KeyPair>, now: Date): Ca {
  if (caProblem(stored.cert, stored.key, now) !== undefined) return issueCa(db, now);
  const x509 = new X509Certificate(stored.cert!);
  // The issuer name of a kept CA is its own subject, whatever this version would call it.
  return { cert: stored.cert!, key: stored.key!, name: x509.subject.replace(/^CN=/, ""), x509 };
}

export function issueLeaf(ca: Ca, spec: LeafSpec, now: Date): KeyPair {
  const pair = newKeyPair();
  const cert = certificate({
    commonName: spec.commonName,
    dnsNames: spec.dnsNames ?? [],
    isCA: false,
    notBefore: notBeforeFor(now),
    // Never beyond the CA: a leaf must not outlive what signed it.
    notAfter: new Date(
      Math.min(now.getTime() + LEAF_LIFETIME_DAYS * DAY_MS, Date.parse(ca.x509.validTo)),
    ),
    publicKeyDer: pair.publicKeyDer,
    issuer: { commonName: ca.name, key: ca.key },
  });
  return { cert, key: pair.key };
}

/** Why a stored leaf must be issued anew (undefined: it is sound). */
export function leafProblem(
  ca: X509Certificate,
  pair: Partial<KeyPair>,
  dnsNames: string[],
  now: Date,
  renewBeforeDays = RENEW_BEFORE_DAYS,
): string | undefined {
  if (!pair.cert || !pair.key) return "missing";
  try {
    const cert = new X509Certificate(pair.cert);
    if (!cert.verify(ca.publicKey)) return "not signed by the CA";
    if (!keyMatches(pair.key, cert)) return "its key does not match it";
    const sans = (cert.subjectAltName ?? "").split(", ").map(s => s.replace(/^DNS:/, ""));
    const missing = dnsNames.filter(n => !sans.includes(n));
    if (missing.length > 0) return `it does not name ${missing.join(", ")}`;
    if (Date.parse(cert.validFrom) > now.getTime())
      return `it is valid only from ${cert.validFrom}`;
    if (endsWithin(cert.validTo, now, renewBeforeDays)) return `it ends ${cert.validTo}`;
    return undefined;
  } catch (err) {
    return `it does not parse (${(err as Error).message})`;
  }
}

/** The stored leaf while it is sound, else one issued anew by `ca`. */
export function ensureLeaf(ca: Ca, stored: Partial<KeyPair>, spec: LeafSpec, now: Date): KeyPair {
  return leafProblem(ca.x509, stored, spec.dnsNames ?? [], now) === undefined
    ? { cert: stored.cert!, key: stored.key! }
    : issueLeaf(ca, spec, now);
}
