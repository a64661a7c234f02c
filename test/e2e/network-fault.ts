/**
 * Cuts a pod off the network on the node, as a failed link or a partition would: every packet
 * from or to its address is dropped in the raw table, before connection tracking, so established
 * connections hang silently (no RST, no FIN) exactly as on a real partition. PREROUTING catches
 * what pods send and bridged pod-to-pod traffic (the node enables bridge-nf-call-iptables);
 * OUTPUT catches what the node itself sends, the operator's probes included.
 */
import { execFileSync } from "node:child_process";

const COMMENT = "pgkeeper-e2e-network-fault";

const rules = (ip: string): string[][] => [
  ["PREROUTING", "-s", ip],
  ["PREROUTING", "-d", ip],
  ["OUTPUT", "-d", ip],
];

const iptables = (op: "-I" | "-D", [chain, ...match]: string[]): void => {
  execFileSync(
    "iptables",
    [
      "-w",
      "5",
      "-t",
      "raw",
      op,
      chain,
      ...match,
      "-m",
      "comment",
      "--comment",
      COMMENT,
      "-j",
      "DROP",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
};

export interface NetworkFault {
  /** Removes the rules (idempotent). */
  heal(): void;
}

export function cutOff(ip: string): NetworkFault {
  if (!/^\d+\.\d+\.\d+\.\d+$/.test(ip)) throw new Error(`cutOff: not an IPv4 address: ${ip}`);
  const added: string[][] = [];
  try {
    for (const rule of rules(ip)) {
      iptables("-I", rule);
      added.push(rule);
    }
  } catch (err) {
    added.forEach(rule => iptables("-D", rule));
    throw err;
  }
  let healed = false;
  return {
    heal() {
      if (healed) return;
      healed = true;
      added.forEach(rule => iptables("-D", rule));
    },
  };
}
