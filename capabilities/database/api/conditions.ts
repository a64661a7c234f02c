/**
 * metav1.Condition bookkeeping: lastTransitionTime changes only when the status flips.
 */
import { Condition } from "./database-schema";

export type ConditionType =
  | "Ready"
  | "Reconciled"
  | "PrimaryAvailable"
  | "ParametersApplied"
  | "ReplicasServing"
  | "ContinuousArchiving"
  | "Recovered"
  | "BackupSucceeded"
  | "MajorUpgrade"
  | "CustomQueries";

export interface ConditionInput {
  type: ConditionType;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

/** Returns `conditions` with `input` set (pure). */
export function setCondition(
  conditions: Condition[] | undefined,
  input: ConditionInput,
  now: Date,
  observedGeneration?: number,
): Condition[] {
  const list = conditions ?? [];
  const previous = list.find(c => c.type === input.type);
  const lastTransitionTime =
    previous && previous.status === input.status ? previous.lastTransitionTime : now.toISOString();
  const next: Condition = {
    ...input,
    lastTransitionTime,
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  };
  return previous ? list.map(c => (c.type === input.type ? next : c)) : [...list, next];
}

/** Returns `conditions` with each of `inputs` set, in order (pure). */
export const setConditions = (
  conditions: Condition[] | undefined,
  inputs: ConditionInput[],
  now: Date,
  observedGeneration?: number,
): Condition[] =>
  inputs.reduce<Condition[]>(
    (list, input) => setCondition(list, input, now, observedGeneration),
    conditions ?? [],
  );

/**
 * `next` with each condition's lastTransitionTime taken from `stored` when its status is the
 * same there. A pass may set one condition twice (the instance count says Ready, the replicas'
 * serving says not), and the middle value must not count as a transition: a new time with
 * nothing else changed was a status write every pass, at rest.
 */
export function keepTransitionTimes(
  stored: Condition[] | undefined,
  next: Condition[] | undefined,
): Condition[] | undefined {
  if (!stored || !next) return next;
  return next.map(c => {
    const before = stored.find(s => s.type === c.type);
    return before &&
      before.status === c.status &&
      before.lastTransitionTime !== c.lastTransitionTime
      ? { ...c, lastTransitionTime: before.lastTransitionTime }
      : c;
  });
}

export const findCondition = (
  conditions: Condition[] | undefined,
  type: ConditionType,
): Condition | undefined => conditions?.find(c => c.type === type);

export const isTrue = (conditions: Condition[] | undefined, type: ConditionType): boolean =>
  findCondition(conditions, type)?.status === "True";
