/**
 * spec.postgresql: the parameters (parameters.ts) and synchronous replication, whose rules are
 * the CRD's CEL (number with quorum only, required with it, below spec.instances) and whose mode
 * takes YAML's `off` (false) as "off" (README, "YAML habits").
 */
import { Judge } from "./judge";
import { judgeParameters } from "./parameters";
import { int, isApiInteger, obj, oneOf } from "./read";

const F = "spec.postgresql.synchronous";

/** The mode as Mutate stores it: `mode: off` in YAML is the boolean false. */
const modeReading = (mode: unknown): unknown => (mode === false ? "off" : mode);

function judgeSynchronous(j: Judge, synchronous: unknown, instances: unknown): void {
  const o = obj(j, synchronous, F);
  if (!o) return;
  const mode = oneOf(j, modeReading(o.mode), `${F}.mode`, ["off", "quorum"]);
  const number = int(j, o.number, `${F}.number`, 1, 8);
  if (mode === "quorum" && o.number === undefined)
    j.bad(`${F}.number`, "required with quorum", "crd");
  if (o.number !== undefined && modeReading(o.mode) !== "quorum")
    j.bad(`${F}.number`, "only with mode quorum", "crd");
  // Mutate defaults instances to 1 before the CEL rule reads it.
  const count = instances === undefined ? 1 : isApiInteger(instances) ? instances : undefined;
  if (number !== undefined && count !== undefined && number >= count)
    j.bad(`${F}.number`, `not below spec.instances (${count})`, "crd");
}

export function judgePostgresql(
  j: Judge,
  postgresql: unknown,
  version: string | undefined,
  instances: unknown,
): void {
  const o = obj(j, postgresql, "spec.postgresql");
  if (!o) return;
  judgeParameters(j, version, o.parameters);
  if (o.synchronous !== undefined) judgeSynchronous(j, o.synchronous, instances);
}
