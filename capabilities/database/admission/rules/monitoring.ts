/**
 * spec.monitoring.customQueries: each names a ConfigMap and a key that can exist (the CRD's
 * patterns), and no key twice. Whether the ConfigMap is there, and what it holds, is the
 * operator's to read: the CustomQueries condition says (specs/custom-queries.ts).
 */
import { isDnsSubdomain } from "./labels";
import { Denial, deny, Rule } from "./types";

/** A ConfigMap key: letters, digits, '-', '_', '.', not '.' or '..'. */
const CONFIG_MAP_KEY = /^([-_a-zA-Z0-9]|[.][-_a-zA-Z0-9])[-._a-zA-Z0-9]*$/;

export const monitoringRule: Rule = {
  name: "monitoring",
  check: ({ db }) => {
    const field = "spec.monitoring.customQueries";
    const seen = new Set<string>();
    return (db.spec.monitoring?.customQueries ?? []).flatMap((q, i): Denial[] => {
      const denials: Denial[] = [];
      if (!isDnsSubdomain(q.name))
        denials.push(
          deny(`${field}[${i}].name`, `"${q.name}" is not a ConfigMap name (a DNS subdomain)`),
        );
      if (!CONFIG_MAP_KEY.test(q.key) || q.key.length > 253)
        denials.push(deny(`${field}[${i}].key`, `"${q.key}" is not a ConfigMap key`));
      const ref = `${q.name}/${q.key}`;
      if (seen.has(ref)) denials.push(deny(`${field}[${i}]`, `${ref} is named twice`));
      seen.add(ref);
      return denials;
    });
  },
};
