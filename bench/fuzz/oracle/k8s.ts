/**
 * Kubernetes' rules, written from apimachinery's validation and resource.Quantity: DNS names,
 * qualified names and label values, the quantity grammar, ConfigMap/Secret keys.
 */

const DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

/** DNS-1123 subdomain: object names such as Secrets and StorageClasses. */
export const isDnsSubdomain = (s: string): boolean =>
  s.length <= 253 && new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`).test(s);

/** DNS-1123 label: namespaces. */
export const isDnsLabel = (s: string): boolean =>
  s.length <= 63 && new RegExp(`^${DNS_LABEL}$`).test(s);

/** DNS-1035 label: Service names (start with a letter). */
export const isDns1035 = (s: string): boolean =>
  s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s);

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** A label key or taint key: [DNS-subdomain prefix/]name, name at most 63. */
export function isQualifiedName(s: string): boolean {
  const parts = s.split("/");
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2 && (parts[0] === "" || !isDnsSubdomain(parts[0]))) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

export const isLabelValue = (s: string): boolean =>
  s === "" || (s.length <= 63 && QUALIFIED_NAME.test(s));

/** validation.IsConfigMapKey, which Secret keys follow. */
export const isConfigMapKey = (s: string): boolean =>
  s.length > 0 &&
  s.length <= 253 &&
  /^[-._a-zA-Z0-9]+$/.test(s) &&
  s !== "." &&
  s !== ".." &&
  !s.startsWith("..");

/** A quantity as resource.ParseQuantity reads it, as a float (enough for comparisons here). */
export function quantityValue(s: string): number | undefined {
  const m =
    /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/.exec(
      s,
    );
  if (!m) return undefined;
  const n = Number(m[2]) * (m[1] === "-" ? -1 : 1);
  const suffix = m[3] ?? "";
  const binary: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
  const decimal: Record<string, number> = {
    n: -9,
    u: -6,
    m: -3,
    k: 3,
    M: 6,
    G: 9,
    T: 12,
    P: 15,
    E: 18,
  };
  if (suffix in binary) return n * 2 ** binary[suffix];
  if (suffix in decimal) return n * 10 ** decimal[suffix];
  if (suffix === "") return n;
  return n * 10 ** Number(suffix.slice(1));
}
