/** The whole corpus. */
import { BACKUP } from "./invalid-backup";
import { BASICS } from "./invalid-basics";
import { BOOTSTRAP } from "./invalid-bootstrap";
import { FOUND_BY_FUZZ } from "./invalid-found-by-fuzz";
import { NETWORK } from "./invalid-network";
import { POSTGRESQL } from "./invalid-postgresql";
import { QUANTITIES } from "./invalid-quantities";
import { SCHEDULING } from "./invalid-scheduling";
import { UPDATES } from "./invalid-updates";
import { InvalidCase, ValidCase } from "./types";
import { VALID } from "./valid";

export const INVALID: readonly InvalidCase[] = [
  ...BASICS,
  ...QUANTITIES,
  ...SCHEDULING,
  ...POSTGRESQL,
  ...BACKUP,
  ...BOOTSTRAP,
  ...UPDATES,
  ...FOUND_BY_FUZZ,
  ...NETWORK,
];

export { VALID };
export type { InvalidCase, ValidCase };
