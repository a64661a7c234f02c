/**
 * A major upgrade's phases between its start and its end (status.upgrade.phase): while one of
 * them is recorded, the reconcile drives the upgrade and admission refuses another version change.
 */
import { type DatabaseStatus, UPGRADE_PHASES } from "./database-schema";

export type UpgradeStatus = NonNullable<DatabaseStatus["upgrade"]>;
export type UpgradePhase = UpgradeStatus["phase"];

/** The phases that end an upgrade; every other one is under way. */
const ENDED: readonly UpgradePhase[] = ["Succeeded", "Failed", "Cancelled"];

export const UPGRADE_UNDER_WAY: readonly UpgradePhase[] = UPGRADE_PHASES.filter(
  p => !ENDED.includes(p),
);

/** Also for a status admission has not checked yet (any phase string). */
export const isUnderWay = (u: { phase?: string } | undefined): boolean =>
  (UPGRADE_UNDER_WAY as readonly string[]).includes(u?.phase ?? "");
