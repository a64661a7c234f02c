/**
 * A namespaced install (PGKEEPER_WATCH_NAMESPACES) reconciles Databases in its listed namespaces
 * only: one elsewhere would be stored and never run, so admission refuses it, naming where
 * Databases are served. Deleting such a Database needs no admission (no webhook on DELETE).
 */
import { OperatorConfig, servesNamespace } from "../lib/config";
import { deny, Denial } from "./rules/types";

export function watchedNamespaceDenials(namespace: string, config: OperatorConfig): Denial[] {
  if (servesNamespace(namespace, config)) return [];
  return [
    deny(
      "metadata.namespace",
      `"${namespace}" is not served by this pgkeeper install, which runs Databases only in namespaces ${config.watchNamespaces.join(", ")} (PGKEEPER_WATCH_NAMESPACES; Helm value watchNamespaces)`,
    ),
  ];
}
