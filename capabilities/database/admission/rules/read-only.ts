import { MAX_READ_ONLY_LAG } from "../../api/database-schema";
import { compareQuantities } from "../../lib/quantity";
import { deny, Rule } from "./types";
import { sizeError } from "./util";

export const readOnlyMaxLagRule: Rule = {
  name: "read-only-max-lag",
  check: ({ db }) => {
    const maxLag = db.spec.readOnly?.maxLag;
    if (maxLag === undefined) return [];
    const error =
      sizeError(maxLag) ??
      (compareQuantities(maxLag, MAX_READ_ONLY_LAG) > 0
        ? `${maxLag} is too large; at most ${MAX_READ_ONLY_LAG} (a replica that far behind serves stale reads)`
        : undefined);
    return error === undefined ? [] : [deny("spec.readOnly.maxLag", error)];
  },
};
