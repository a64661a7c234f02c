import { DEFAULT_CONFIG } from "../lib/config";
import { watchedNamespaceDenials } from "./watched-namespace";

describe("watchedNamespaceDenials", () => {
  it.each<[string, string[], string, string[]]>([
    ["a cluster-wide install serves every namespace", [], "anywhere", []],
    ["a listed namespace", ["shop", "billing"], "billing", []],
    [
      "a namespace not listed, naming those served",
      ["shop", "billing"],
      "other",
      [
        'metadata.namespace: "other" is not served by this pgkeeper install, which runs Databases only in namespaces shop, billing (PGKEEPER_WATCH_NAMESPACES; Helm value watchNamespaces)',
      ],
    ],
  ])("%s", (_, watchNamespaces, namespace, expected) => {
    const denials = watchedNamespaceDenials(namespace, { ...DEFAULT_CONFIG, watchNamespaces });
    expect(denials.map(d => `${d.field}: ${d.message}`)).toEqual(expected);
  });
});
