import { deny, Rule } from "./types";
import { sizeError } from "./util";

export const readOnlyMaxLagRule: Rule = {
  name: "read-only-max-lag",
  check: ({ db }) => {
    const maxLag = db.spec.readOnly?.maxLag;
    const error = maxLag === undefined ? undefined : sizeError(maxLag);
    return error === undefined ? [] : [deny("spec.readOnly.maxLag", error)];
  },
};
