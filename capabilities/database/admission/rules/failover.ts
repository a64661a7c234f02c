import { deny, Rule } from "./types";

const MAX_FAILOVER_DELAY_SECONDS = 3600;

export const failoverDelayRule: Rule = {
  name: "failover-delay",
  check: ({ db }) => {
    const delay = db.spec.failover?.delaySeconds;
    if (delay === undefined || (delay >= 0 && delay <= MAX_FAILOVER_DELAY_SECONDS)) return [];
    return [
      deny(
        "spec.failover.delaySeconds",
        `${delay} is out of range; allowed 0..${MAX_FAILOVER_DELAY_SECONDS} seconds`,
      ),
    ];
  },
};
