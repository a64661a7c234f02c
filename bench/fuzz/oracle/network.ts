/**
 * spec.networkPolicy, from the CRD (types, 32 clients, peer CEL) and networking/v1's
 * ValidateNetworkPolicyPeer / ValidateIPBlock: a peer is selectors or an ipBlock, a cidr parses
 * as Go's net.ParseCIDR does, each except is a CIDR strictly inside it.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { Judge } from "./judge";
import { bool, obj, str } from "./read";
import { labelSelector } from "./scheduling";

interface Cidr {
  address: string;
  family: "ipv4" | "ipv6";
  prefix: number;
}

function cidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(prefixText) || (prefixText.length > 1 && prefixText[0] === "0"))
    return undefined;
  const prefix = Number(prefixText);
  // Go's parser refuses IPv4 octets with leading zeros, zones and dotted IPv4 inside IPv6.
  if (isIPv4(address) && !/(^|\.)0[0-9]/.test(address) && prefix <= 32)
    return { address, family: "ipv4", prefix };
  if (isIPv6(address) && !address.includes(".") && !address.includes("%") && prefix <= 128)
    return { address, family: "ipv6", prefix };
  return undefined;
}

function ipBlock(j: Judge, b: Record<string, unknown>, f: string): void {
  const whole = str(j, b.cidr, `${f}.cidr`, { min: 1, max: 64 });
  if (b.cidr === undefined) j.bad(`${f}.cidr`, "required", "crd");
  const outer = whole === undefined ? undefined : cidr(whole);
  if (whole !== undefined && !outer) j.bad(`${f}.cidr`, "not a CIDR", "k8s");
  if (b.except === undefined) return;
  if (!Array.isArray(b.except)) return j.bad(`${f}.except`, "not a list", "crd");
  if (b.except.length > 32) j.bad(`${f}.except`, "more than 32", "crd");
  b.except.forEach((e, i) => {
    const g = `${f}.except[${i}]`;
    const text = str(j, e, g, { max: 64 });
    if (text === undefined || !outer) return;
    const inner = cidr(text);
    const list = new BlockList();
    list.addSubnet(outer.address, outer.prefix, outer.family);
    const inside =
      inner !== undefined &&
      inner.family === outer.family &&
      inner.prefix > outer.prefix &&
      list.check(inner.address, inner.family);
    if (!inside) j.bad(g, "not a CIDR strictly inside cidr", "k8s");
  });
}

function peer(j: Judge, p: unknown, f: string): void {
  const o = obj(j, p, f);
  if (!o) return;
  const selectors = o.podSelector !== undefined || o.namespaceSelector !== undefined;
  if (!selectors && o.ipBlock === undefined) j.bad(f, "needs a selector or an ipBlock", "crd");
  if (selectors && o.ipBlock !== undefined) j.bad(f, "ipBlock and selectors together", "crd");
  labelSelector(j, o.podSelector, `${f}.podSelector`);
  labelSelector(j, o.namespaceSelector, `${f}.namespaceSelector`);
  const block = obj(j, o.ipBlock, `${f}.ipBlock`);
  if (block) ipBlock(j, block, `${f}.ipBlock`);
}

export function judgeNetworkPolicy(j: Judge, n: unknown): void {
  const f = "spec.networkPolicy";
  const o = obj(j, n, f);
  if (!o) return;
  bool(j, o.enabled, `${f}.enabled`);
  if (o.clients === undefined) return;
  if (!Array.isArray(o.clients)) return j.bad(`${f}.clients`, "not a list", "crd");
  if (o.clients.length > 32) j.bad(`${f}.clients`, "more than 32", "crd");
  o.clients.forEach((p, i) => peer(j, p, `${f}.clients[${i}]`));
}
