/**
 * Minimal X.509 v3 certificates (ECDSA P-256, SHA-256) with Node's crypto only: a CA, and leaf
 * certificates it signs for TLS servers and clients (pgBackRest's TLS server and its clients
 * here; the per-Database CA issue 15 builds on). Node can parse certificates but not make them,
 * and a dependency for ~150 lines of DER is not worth its supply chain. Pure except for key
 * generation and the random serial.
 */
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { privateKeyOf, publicKeyDerOf, rememberGenerated } from "./private-keys";

// --- DER ---------------------------------------------------------------------------------------

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...parts: Buffer[]) => tlv(0x30, ...parts);
const set = (...parts: Buffer[]) => tlv(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => tlv(0xa0 + n, ...parts);
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));

/** A non-negative INTEGER from big-endian bytes (a leading 0 keeps the sign bit clear). */
function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const out = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128))
      chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, "");
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, "ascii"))
    : tlv(0x18, Buffer.from(`${digits}Z`, "ascii"));
}

// --- X.509 -------------------------------------------------------------------------------------

const ECDSA_WITH_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));
const name = (commonName: string) => sequence(set(sequence(oid("2.5.4.3"), utf8(commonName))));
const extension = (id: string, critical: boolean, value: Buffer) =>
  sequence(oid(id), ...(critical ? [boolean(true)] : []), octets(value));

export interface KeyPair {
  /** PKCS#8 PEM. */
  key: string;
  /** SubjectPublicKeyInfo DER. */
  publicKeyDer: Buffer;
}

export function newKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pair = {
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyDer: publicKey.export({ type: "spki", format: "der" }),
  };
  rememberGenerated(pair.key, privateKey, pair.publicKeyDer);
  return pair;
}

export interface CertificateRequest {
  commonName: string;
  /** DNS subjectAltNames (a leaf); none for a CA. */
  dnsNames?: string[];
  isCA: boolean;
  notBefore: Date;
  notAfter: Date;
  /** The subject's public key (SubjectPublicKeyInfo DER). */
  publicKeyDer: Buffer;
  /** Who signs: the CA's name and key (PEM); the subject itself when absent (self-signed). */
  issuer?: { commonName: string; key: string };
  /** Signs with the subject's own key when self-signed. */
  selfKey?: string;
  serial?: Buffer;
}

function extensions(req: CertificateRequest): Buffer {
  if (req.isCA)
    return sequence(
      extension("2.5.29.19", true, sequence(boolean(true))), // basicConstraints cA
      extension("2.5.29.15", true, bits(Buffer.from([0x06]), 1)), // keyCertSign, cRLSign
    );
  const sans = (req.dnsNames ?? []).map(dns => tlv(0x82, Buffer.from(dns, "ascii")));
  return sequence(
    extension("2.5.29.19", true, sequence()),
    extension("2.5.29.15", true, bits(Buffer.from([0x80]), 7)), // digitalSignature
    extension("2.5.29.37", false, sequence(oid("1.3.6.1.5.5.7.3.1"), oid("1.3.6.1.5.5.7.3.2"))),
    ...(sans.length > 0 ? [extension("2.5.29.17", false, sequence(...sans))] : []),
  );
}

/** A certificate (PEM) for `req`, signed by its issuer's key (or its own, self-signed). */
export function certificate(req: CertificateRequest): string {
  const serial = req.serial ?? Buffer.concat([Buffer.from([0x01]), randomBytes(15)]);
  const issuerName = req.issuer?.commonName ?? req.commonName;
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_WITH_SHA256,
    name(issuerName),
    sequence(time(req.notBefore), time(req.notAfter)),
    name(req.commonName),
    req.publicKeyDer,
    explicit(3, extensions(req)),
  );
  const signingKey = req.issuer?.key ?? req.selfKey;
  if (!signingKey) throw new Error("a certificate needs an issuer key or its own (self-signed)");
  const signature = sign("sha256", tbs, privateKeyOf(signingKey));
  return pem("CERTIFICATE", sequence(tbs, ECDSA_WITH_SHA256, bits(signature)));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** The SubjectPublicKeyInfo DER of a private key (PEM). */
export const publicKeyOf = (key: string): Buffer => publicKeyDerOf(key);
