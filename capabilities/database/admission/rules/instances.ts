import { MAX_INSTANCES } from "../../api/database-schema";
import { deny, Rule } from "./types";

export const instancesRule: Rule = {
  name: "instances",
  check: ({ db }) => {
    const { instances } = db.spec;
    if (instances === undefined || (instances >= 1 && instances <= MAX_INSTANCES)) return [];
    return [
      deny(
        "spec.instances",
        `${instances} is out of range; allowed 1..${MAX_INSTANCES} (one primary plus up to ${MAX_INSTANCES - 1} replicas)`,
      ),
    ];
  },
};
