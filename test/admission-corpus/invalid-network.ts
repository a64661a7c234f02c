/** spec.networkPolicy: the switch's type, and clients as networking/v1 NetworkPolicyPeers. */
import { BASE, InvalidCase } from "./types";

const F = "spec.networkPolicy";
const clients = (...peers: unknown[]) => ({
  ...BASE,
  networkPolicy: { enabled: true, clients: peers },
});

export const NETWORK: InvalidCase[] = [
  {
    id: "network-enabled-string",
    spec: { ...BASE, networkPolicy: { enabled: "yes" } },
    field: `${F}.enabled`,
  },
  {
    id: "network-clients-not-list",
    spec: { ...BASE, networkPolicy: { clients: {} } },
    field: `${F}.clients`,
  },
  { id: "network-client-empty", spec: clients({}), field: `${F}.clients[0]` },
  {
    id: "network-client-ip-and-selector",
    spec: clients({ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }),
    field: `${F}.clients[0]`,
  },
  {
    id: "network-cidr-prefix-33",
    spec: clients({ ipBlock: { cidr: "10.0.0.0/33" } }),
    field: `${F}.clients[0].ipBlock.cidr`,
  },
  {
    id: "network-cidr-no-prefix",
    spec: clients({ ipBlock: { cidr: "10.0.0.1" } }),
    field: `${F}.clients[0].ipBlock.cidr`,
  },
  {
    id: "network-cidr-word",
    spec: clients({ ipBlock: { cidr: "office" } }),
    field: `${F}.clients[0].ipBlock.cidr`,
  },
  {
    id: "network-cidr-missing",
    spec: clients({ ipBlock: { except: ["10.1.0.0/16"] } }),
    field: `${F}.clients[0].ipBlock.cidr`,
  },
  {
    id: "network-except-outside",
    spec: clients({ ipBlock: { cidr: "10.0.0.0/8", except: ["192.168.0.0/16"] } }),
    field: `${F}.clients[0].ipBlock.except[0]`,
  },
  {
    id: "network-except-equal",
    spec: clients({ ipBlock: { cidr: "fd00::/8", except: ["fd00::/8"] } }),
    field: `${F}.clients[0].ipBlock.except[0]`,
  },
  {
    id: "network-except-other-family",
    spec: clients({ ipBlock: { cidr: "10.0.0.0/8", except: ["fd00::/16"] } }),
    field: `${F}.clients[0].ipBlock.except[0]`,
  },
  {
    id: "network-selector-operator",
    spec: clients({
      podSelector: { matchExpressions: [{ key: "app", operator: "Is", values: ["a"] }] },
    }),
    field: `${F}.clients[0].podSelector.matchExpressions[0].operator`,
  },
  {
    id: "network-selector-in-no-values",
    spec: clients({ namespaceSelector: { matchExpressions: [{ key: "team", operator: "In" }] } }),
    field: `${F}.clients[0].namespaceSelector.matchExpressions[0].values`,
  },
  {
    id: "network-selector-label-key",
    spec: clients({ podSelector: { matchLabels: { "bad key": "a" } } }),
    field: `${F}.clients[0].podSelector.matchLabels`,
  },
  {
    id: "network-clients-too-many",
    spec: clients(
      ...Array.from({ length: 33 }, (_, i) => ({ ipBlock: { cidr: `10.${i}.0.0/16` } })),
    ),
    field: `${F}.clients`,
  },
];
