/**
 * Every value rule of the Database webhook, in the order their denials are reported. They run
 * after the structural check (shape.ts), so each may trust the spec's types.
 */
import {
  backupNeedsStoreRule,
  backupRetentionRule,
  backupScheduleRule,
  backupVolumeRemovedRule,
} from "./backup";
import { bootstrapImmutableRule, bootstrapRecoveryRule, bootstrapRestoreRule } from "./bootstrap";
import { failoverDelayRule } from "./failover";
import { allowedImageRule, imageRule } from "./image";
import { instancesRule } from "./instances";
import { nameRule } from "./name";
import {
  blockedParametersRule,
  operatorOwnedParametersRule,
  parameterCatalogRule,
  parameterNamesRule,
  parameterValuesRule,
  preloadLibrariesRule,
} from "./parameters";
import {
  requestsWithinLimitsRule,
  resourceMinimumsRule,
  resourceQuantitiesRule,
} from "./resources";
import { readOnlyMaxLagRule } from "./read-only";
import { antiAffinityRule, nodeSelectorRule, tolerationsRule } from "./scheduling";
import { topologySpreadRule } from "./topology-spread";
import { monitoringRule } from "./monitoring";
import { affinityRule } from "./affinity";
import { networkClientsRule } from "./network-policy";
import { objectStoreRule } from "./object-store";
import {
  storageClassImmutableRule,
  storageClassNameRule,
  storageShrinkRule,
  storageSizeRule,
} from "./storage";
import { synchronousModeRule, synchronousNumberRule } from "./synchronous";
import { Rule } from "./types";
import { versionImageRule, versionChangeRule, versionRule } from "./version";

export const RULES: readonly Rule[] = [
  nameRule,
  versionRule,
  versionChangeRule,
  versionImageRule,
  imageRule,
  allowedImageRule,
  instancesRule,
  storageSizeRule,
  storageShrinkRule,
  storageClassNameRule,
  storageClassImmutableRule,
  resourceQuantitiesRule,
  resourceMinimumsRule,
  requestsWithinLimitsRule,
  operatorOwnedParametersRule,
  blockedParametersRule,
  parameterNamesRule,
  parameterValuesRule,
  preloadLibrariesRule,
  parameterCatalogRule,
  synchronousModeRule,
  synchronousNumberRule,
  failoverDelayRule,
  readOnlyMaxLagRule,
  backupScheduleRule,
  backupNeedsStoreRule,
  backupRetentionRule,
  backupVolumeRemovedRule,
  objectStoreRule,
  bootstrapRestoreRule,
  bootstrapRecoveryRule,
  bootstrapImmutableRule,
  antiAffinityRule,
  nodeSelectorRule,
  tolerationsRule,
  affinityRule,
  topologySpreadRule,
  networkClientsRule,
  monitoringRule,
];

export type { CheckedDatabase, Denial, Rule, RuleContext } from "./types";
