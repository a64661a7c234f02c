/**
 * An S3 object store (backup.objectStore, and a recovery source's): the CRD's patterns and CEL,
 * host names as DNS has them (labels of 1-63 characters), S3's bucket naming rules, and Secret
 * names and keys as Kubernetes has them.
 */
import { Judge } from "./judge";
import { isConfigMapKey, isDnsSubdomain } from "./k8s";
import { obj, oneOf, required, str } from "./read";

const PORT =
  "([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])";
const ENDPOINT = new RegExp(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:${PORT})?$`);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;
const PATH = /^\/[A-Za-z0-9._/-]*$/;

function endpoint(j: Judge, v: unknown, f: string): void {
  const s = str(j, v, f, { min: 1, max: 253, pattern: ENDPOINT });
  if (s === undefined) return;
  const host = s.replace(/:[0-9]+$/, "");
  if (host.split(".").some(label => label.length === 0 || label.length > 63))
    j.bad(f, "a host name label is empty or longer than 63", "dns");
  else if (host.split(".").some(label => label.startsWith("-") || label.endsWith("-")))
    j.bad(f, "a host name label starts or ends with '-'", "dns");
  // RFC 3696 section 2: a top-level domain is not all-numeric, so such a host is an address.
  else if (/\.[0-9]+$|^[0-9]+$/.test(host) && !isIpv4(host))
    j.bad(f, "all-numeric last label, and no IPv4 address", "dns");
}

const isIpv4 = (host: string): boolean => {
  const parts = host.split(".");
  return parts.length === 4 && parts.every(p => /^[0-9]{1,3}$/.test(p) && Number(p) < 256);
};

/** S3's bucket naming rules beyond the CRD's (AWS "Bucket naming rules"). */
const S3_RESERVED = [/^xn--/, /^sthree-/, /-s3alias$/, /--ol-s3$/];

function bucket(j: Judge, v: unknown, f: string): void {
  const s = str(j, v, f, { pattern: BUCKET });
  if (s === undefined) return;
  if (/^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$/.test(s)) return j.bad(f, "an IP address", "crd");
  if (/\.\.|\.-|-\./.test(s)) return j.bad(f, "adjacent '.', or '.' next to '-'", "crd");
  if (S3_RESERVED.some(r => r.test(s))) j.bad(f, "a prefix or suffix S3 reserves", "s3");
}

function path(j: Judge, v: unknown, f: string): void {
  const s = str(j, v, f, { max: 512, pattern: PATH });
  if (s === undefined) return;
  if (/\/\/|\/\.\.\/|\/\.\.$|\/\.\/|\/\.$/.test(s))
    return j.bad(f, "an empty, . or .. segment", "crd");
  if (s.length > 1 && s.endsWith("/")) j.unsure(f, "a trailing '/': an empty last segment?");
}

function secretName(j: Judge, v: unknown, f: string): string | undefined {
  const s = str(j, v, f, { max: 253, pattern: SECRET_NAME });
  if (s !== undefined && !isDnsSubdomain(s)) return void j.bad(f, "no Secret name", "k8s");
  return s;
}

function secretKey(j: Judge, v: unknown, f: string): void {
  const s = str(j, v, f, { max: 253, pattern: SECRET_KEY });
  if (s !== undefined && !isConfigMapKey(s)) j.bad(f, "no Secret key", "k8s");
}

/** The Secrets a store names (for a recovery, they must exist). */
export interface StoreSecrets {
  credentials?: string;
  ca?: string;
}

/** Judges a store at `f`; `recovery` when it is a source's (no path of its own). */
export function judgeStore(j: Judge, v: unknown, f: string, recovery: boolean): StoreSecrets {
  const o = obj(j, v, f);
  if (!o) return {};
  required(j, o, f, ["endpoint", "bucket", "credentials"]);
  endpoint(j, o.endpoint, `${f}.endpoint`);
  bucket(j, o.bucket, `${f}.bucket`);
  if (recovery && o.path !== undefined) j.bad(`${f}.path`, "does not apply to a source", "crd");
  else path(j, o.path, `${f}.path`);
  str(j, o.region, `${f}.region`, { max: 63, pattern: /^[a-z0-9-]+$/ });
  oneOf(j, o.uriStyle, `${f}.uriStyle`, ["path", "host"]);
  const secrets: StoreSecrets = {};
  const credentials = obj(j, o.credentials, `${f}.credentials`);
  if (credentials) {
    required(j, credentials, `${f}.credentials`, ["secretName"]);
    secrets.credentials = secretName(j, credentials.secretName, `${f}.credentials.secretName`);
    secretKey(j, credentials.accessKeyIdKey, `${f}.credentials.accessKeyIdKey`);
    secretKey(j, credentials.secretAccessKeyKey, `${f}.credentials.secretAccessKeyKey`);
  }
  const ca = obj(j, o.ca, `${f}.ca`);
  if (ca) {
    required(j, ca, `${f}.ca`, ["secretName"]);
    secrets.ca = secretName(j, ca.secretName, `${f}.ca.secretName`);
    secretKey(j, ca.key, `${f}.ca.key`);
  }
  return secrets;
}
