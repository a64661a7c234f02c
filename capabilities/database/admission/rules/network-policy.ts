/**
 * spec.networkPolicy.clients: what networking/v1 checks on a NetworkPolicyPeer that the schema
 * (and its CEL) does not, so a bad peer is refused here instead of failing the NetworkPolicy's
 * apply later: valid label selectors, and an ipBlock whose cidr is a CIDR and whose excepts are
 * CIDRs strictly inside it (ValidateIPBlock).
 */
import { isIP } from "node:net";
import { labelSelectorDenials } from "./affinity";
import { Denial, deny, Rule } from "./types";
import { isRecord } from "./util";

interface Cidr {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

const WIDTH = { 4: 32, 6: 128 } as const;

function addressBits(address: string, family: 4 | 6): bigint {
  if (family === 4)
    return address.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  const [head, tail = ""] = address.includes("::") ? address.split("::") : [address, undefined];
  const groups = (text: string | undefined) => (text ? text.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...Array<string>(Math.max(missing, 0)).fill("0"), ...right];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/**
 * A CIDR as Go's net.ParseCIDR reads it (what Kubernetes validates with): an address without
 * leading zeros or zone, a slash, a prefix length in range. Embedded IPv4 in IPv6 is refused.
 */
export function parseCidr(text: string): Cidr | undefined {
  const match = /^([^/]+)\/(0|[1-9][0-9]{0,2})$/.exec(text);
  if (!match) return undefined;
  const [, address, prefixText] = match;
  const family = isIP(address);
  if (family !== 4 && family !== 6) return undefined;
  if (family === 4 && address.split(".").some(p => p.length > 1 && p.startsWith("0")))
    return undefined;
  if (family === 6 && address.includes(".")) return undefined;
  const prefix = Number(prefixText);
  if (prefix > WIDTH[family]) return undefined;
  return { family, bits: addressBits(address, family), prefix };
}

const networkOf = (c: Cidr): bigint => {
  const width = BigInt(WIDTH[c.family]);
  const host = width - BigInt(c.prefix);
  return (c.bits >> host) << host;
};

/** Whether `inner` is a strict subset of `outer` (same family, longer prefix, inside it). */
const strictlyInside = (inner: Cidr, outer: Cidr): boolean =>
  inner.family === outer.family &&
  inner.prefix > outer.prefix &&
  networkOf({ ...inner, prefix: outer.prefix }) === networkOf(outer);

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
