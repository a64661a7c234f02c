/** Kubernetes label syntax, shared by the scheduling rules. */

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key: [dns-subdomain-prefix/]name. */
export function isLabelKey(key: string): boolean {
  const parts = key.split("/");
  if (parts.length > 2) return false;
  const name = parts.pop() as string;
  const prefix = parts[0];
  const prefixOk = prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
  return prefixOk && name.length <= 63 && LABEL_NAME.test(name);
}

export const isLabelValue = (value: string): boolean =>
  value === "" || (value.length <= 63 && LABEL_NAME.test(value));

/** A DNS-1123 subdomain (StorageClass and Secret names): at most 253 characters. */
export const isDnsSubdomain = (value: string): boolean =>
  value.length <= 253 && DNS_SUBDOMAIN.test(value);
