/** Events the operator recorded in a namespace, as a test reads them. */
import { list } from "../../integration/harness/kubectl";

type Event = {
  reason?: string;
  message?: string;
  involvedObject?: { name?: string };
  lastTimestamp?: string;
  eventTime?: string;
};

const at = (e: Event): number => Date.parse(e.lastTimestamp ?? e.eventTime ?? "");

/**
 * The messages of `reason` Events recorded in `namespace` at or after `since` (for the object
 * `name`, when given). Event times have a resolution of one second.
 */
export function eventsSince(
  namespace: string,
  reason: string,
  since: number,
  name?: string,
): string[] {
  return (list("event", namespace) as Event[])
    .filter(
      e =>
        e.reason === reason &&
        at(e) >= since - 1000 &&
        (name === undefined || e.involvedObject?.name === name),
    )
    .map(e => e.message ?? "");
}
