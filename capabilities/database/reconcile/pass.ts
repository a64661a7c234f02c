/**
 * One reconcile pass as the steps see it (steps.ts): what it works on, what earlier steps found,
 * and the one shape every step gives back.
 */
import { Database } from "../api/database";
import { ResolvedSpec } from "../api/defaults";
import { KubeObject } from "../cluster/cluster";
import { DatabaseWriter } from "../cluster/database-writer";
import type { HaResult } from "../ha/ha-step";
import type { BuildInput, Passwords } from "../specs";
import type { CustomQueries } from "../specs/custom-queries";
import type { ReconcileDeps } from "./deps";
import type { RestoredSecret } from "./passwords";
import type { Running } from "../upgrade/runtime";

/** What one pass works on: its dependencies, the Database as read, and its one status writer. */
export interface Pass {
  deps: ReconcileDeps;
  db: Database;
  /** `namespace/name`: the key of everything remembered of this Database. */
  key: string;
  writer: DatabaseWriter;
  /** The spec the instances run: the data's major while an upgrade has not converted it. */
  spec: ResolvedSpec;
  /** The spec as asked (spec.version's major and image), which a major upgrade converts to. */
  wanted: ResolvedSpec;
  /** The major the data directory is on (status.version, ADR 0041). */
  dataVersion: string;
  /** What the StatefulSet runs now. */
  running: Running;
  /** The pods of its StatefulSet, as listed at the start of the pass. */
  pods: KubeObject[];
  input: BuildInput;
  /**
   * The spec is refused (InvalidSpec): only the steps that keep the running instances safe run,
   * and high availability leaves the spec's parameters alone.
   */
  specRefused: boolean;
}

/** What steps found, for the steps after them. */
export interface Found {
  /** The superuser's password PostgreSQL has (HA logs in with it), once known. */
  superuser?: string;
  /** Both passwords in use, once every Secret agrees with PostgreSQL (the children need them). */
  passwords?: Passwords;
  /** Secrets deleted by hand whose password is put back with the children. */
  restored?: RestoredSecret[];
  /** What the HA step saw and did (absent: HA did not run). */
  ha?: HaResult;
  /** The primary after HA: an operation may have moved it. */
  primary?: string;
  /** This Database's Backups after the backups step. */
  backups?: KubeObject[];
  /** The user's metrics queries as read and checked (absent: none asked for). */
  customQueries?: CustomQueries;
}

/** What every step gives back. */
export interface StepResult {
  found?: Partial<Found>;
  /** Look again within this time, whatever else happens meanwhile. */
  requeueAfterMs?: number;
  /**
   * Why this step could not do its part. The later steps still run (high availability must never
   * wait for a child), the status step does not: the first failure is what the pass reports.
   */
  failure?: unknown;
}

export interface Step {
  /** A short name, for the docs and logs. */
  name: string;
  /** One line on what it does (docs/architecture.md is generated from these). */
  does: string;
  /** The file that holds it, relative to capabilities/database. */
  file: string;
  /** Whether it runs once an earlier step failed (default: yes). */
  afterFailure?: false;
  /** Whether it runs when the spec is refused: it keeps the running instances safe. */
  keepsInstancesSafe?: true;
  run(pass: Pass, found: Found): Promise<StepResult>;
}
