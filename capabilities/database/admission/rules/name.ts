import { MAX_NAME_LENGTH } from "../../api/database-schema";
import { deny, Rule } from "./types";

/** DNS-1035 label: the name becomes Service names, which must be one. */
export const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const nameRule: Rule = {
  name: "metadata-name",
  check: ({ db }) => {
    const { name } = db.metadata;
    // Without a name there is nothing to check (the apiserver assigns generateName ones first).
    if (name === undefined) return [];
    if (name.length > MAX_NAME_LENGTH) {
      return [
        deny(
          "metadata.name",
          `is ${name.length} characters; at most ${MAX_NAME_LENGTH} are allowed because child names add suffixes such as "-superuser"`,
        ),
      ];
    }
    if (!DNS_1035_LABEL.test(name)) {
      return [
        deny(
          "metadata.name",
          `"${name}" must start with a lowercase letter and contain only lowercase letters, digits and '-' (it names Services)`,
        ),
      ];
    }
    return [];
  },
};
