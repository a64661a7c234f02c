/**
 * CRD_REVISION follows the CRDs: a change of their content without raising it fails here, so an
 * operator can always tell a newer schema from an older one (cluster/crds.ts never applies an
 * older one over a newer).
 */
import { createHash } from "node:crypto";
import { CRD_REVISION, CRD_REVISION_ANNOTATION, allCrds } from "./crd";

/** The content hash of each revision (the annotation itself left out). Add a row when raising. */
const CONTENT_OF_REVISION: Record<number, string> = {
  1: "1d7a8e6440cfbadc",
  2: "db2e4cfc3dec6464", // parameter values: maxLength 4096; allowPlaintext described
  3: "7f7440be6066fef0", // parameters nobody may set (BLOCKED_PARAMETERS), refused by CEL too
  4: "94f0f4926ff4fdd0", // spec.image says the default majors are 15, 17 and 18
  5: "60b0df95e3a2728d", // status.instances[].image and startRefused
  6: "92c379cd4e8dcb82", // spec.version: a downgrade refused by its own CEL message
  7: "baf4f4326c68d1a5", // status.instances[].image from the pod spec, and imageID
  8: "7627f39a9d34f8ec", // wal_level is the user's (replica or logical), never minimal
  9: "d63ba152795947e9", // spec.version rises (a major upgrade): status.version, status.upgrade, phase Upgrading; a fall only back to the data's major (CEL at the root)
  10: "fcce43ed79801522", // status.upgrade.phase Checking: the check Job runs beside the serving primary before anything stops
  11: "e85b9d9893194e10", // status.restart: the rolling restart asked for with the pgkeeper.dev/restart annotation
  12: "e6cfb023cd4bdbc2", // spec.monitoring: the metrics sidecar (enabled, customQueries), condition CustomQueries
  13: "24374413019b3bfe", // spec.scheduling.topologySpread; spec.monitoring.customQueries a list map (name, key)
};

const contentHash = (): string => {
  const crds = allCrds().map(crd => {
    const metadata = crd.metadata as { annotations: Record<string, string> };
    const { [CRD_REVISION_ANNOTATION]: _revision, ...annotations } = metadata.annotations;
    return { ...crd, metadata: { ...metadata, annotations } };
  });
  return createHash("sha256").update(JSON.stringify(crds)).digest("hex").slice(0, 16);
};

it("the CRDs' content is the one recorded for CRD_REVISION (raise it and add a row when the CRDs change)", () => {
  expect({ revision: CRD_REVISION, content: contentHash() }).toEqual({
    revision: CRD_REVISION,
    content: CONTENT_OF_REVISION[CRD_REVISION],
  });
});

it("every CRD carries the revision", () => {
  for (const crd of allCrds()) {
    expect((crd.metadata as { annotations: Record<string, string> }).annotations).toMatchObject({
      [CRD_REVISION_ANNOTATION]: String(CRD_REVISION),
    });
  }
});
