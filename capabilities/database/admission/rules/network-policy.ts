/**
 * spec.networkPolicy.clients: what networking/v1 checks on a NetworkPolicyPeer that the schema
 * (and its CEL) does not, so a bad peer is refused here instead of failing the NetworkPolicy's
 * apply later: valid label selectors, and an ipBlock whose cidr is a CIDR and whose excepts are
 * CIDRs strictly inside it (ValidateIPBlock).
 */
import { BlockList, isIP } from "node:net";
import { labelSelectorDenials } from "./affinity";
import { Denial, deny, Rule } from "./types";
import { isRecord } from "./util";

interface Cidr {
  address: string;
  family: "ipv4" | "ipv6";
  prefix: number;
}

const WIDTH = { ipv4: 32, ipv6: 128 } as const;

/**
 * A CIDR as Go's net.ParseCIDR reads it (what Kubernetes validates with): an address without
 * leading zeros or zone, a slash, a prefix length in range. Embedded IPv4 in IPv6 is refused.
 */
export function parseCidr(text: string): Cidr | undefined {
  const match = /^([^/]+)\/(0|[1-9][0-9]{0,2})$/.exec(text);
  if (!match) return undefined;
  const [, address, prefixText] = match;
  const version = isIP(address);
  if (version !== 4 && version !== 6) return undefined;
  if (version === 4 && address.split(".").some(p => p.length > 1 && p.startsWith("0")))
    return undefined;
  if (version === 6 && address.includes(".")) return undefined;
  const family = version === 4 ? "ipv4" : "ipv6";
  const prefix = Number(prefixText);
  return prefix > WIDTH[family] ? undefined : { address, family, prefix };
}

/**
 * Whether `inner` is a strict subset of `outer`: same family, a longer prefix, and its address
 * in `outer` (with a longer prefix, its whole range then is).
 */
function strictlyInside(inner: Cidr, outer: Cidr): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const range = new BlockList();
  range.addSubnet(outer.address, outer.prefix, outer.family);
  return range.check(inner.address, inner.family);
}

function ipBlockDenials(block: Record<string, unknown>, field: string): Denial[] {
  if (typeof block.cidr !== "string") return [];
  const cidr = parseCidr(block.cidr);
  if (!cidr)
    return [
      deny(`${field}.cidr`, `"${block.cidr}" is not a CIDR (such as 10.0.0.0/8 or fd00::/8)`),
    ];
  const excepts = Array.isArray(block.except) ? block.except : [];
  return excepts.flatMap((e, i): Denial[] => {
    const inner = typeof e === "string" ? parseCidr(e) : undefined;
    if (inner && strictlyInside(inner, cidr)) return [];
    return [
      deny(`${field}.except[${i}]`, `"${String(e)}" must be a CIDR strictly inside ${block.cidr}`),
    ];
  });
}

export const networkClientsRule: Rule = {
  name: "network-clients",
  check: ({ db }) => {
    const clients = db.spec.networkPolicy?.clients ?? [];
    return clients.flatMap((peer, i) => {
      const field = `spec.networkPolicy.clients[${i}]`;
      if (!isRecord(peer)) return [];
      const { podSelector, namespaceSelector, ipBlock } = peer;
      if (ipBlock !== undefined && (podSelector !== undefined || namespaceSelector !== undefined))
        return [deny(field, "a client is either an ipBlock or selectors, not both")];
      if (ipBlock === undefined && podSelector === undefined && namespaceSelector === undefined)
        return [deny(field, "a client needs podSelector, namespaceSelector or ipBlock")];
      return [
        ...labelSelectorDenials(podSelector, `${field}.podSelector`),
        ...labelSelectorDenials(namespaceSelector, `${field}.namespaceSelector`),
        ...(isRecord(ipBlock) ? ipBlockDenials(ipBlock, `${field}.ipBlock`) : []),
      ];
    });
  },
};
