/** What the oracle found: invalid fields (with the rule's source) and what it cannot decide. */

/**
 * Where a rule comes from:
 * - crd: the CRD's schema and CEL rules (deploy/crd.yaml): the apiserver enforces them, before
 *   or after the webhooks, even with the operator down;
 * - doc: stated in the CRD's descriptions or the README, enforced by the webhook only
 *   (minimums, readings of the cluster, cron dates);
 * - k8s: Kubernetes' own validation of what the Database becomes (names, pod scheduling);
 * - postgres: what PostgreSQL refuses (parameters);
 * - s3, dns, oci: S3 bucket naming, host names, image references;
 * - product: the hand-labelled corpus only (no description states it).
 */
export type Source = "crd" | "doc" | "k8s" | "postgres" | "s3" | "dns" | "oci" | "product";

export interface Finding {
  field: string;
  why: string;
  source: Source;
}

export type Verdict = "valid" | "invalid" | "unknown";

export interface Judgement {
  verdict: Verdict;
  findings: Finding[];
  unknowns: string[];
}

export class Judge {
  readonly findings: Finding[] = [];
  readonly unknowns: string[] = [];

  bad(field: string, why: string, source: Source): void {
    this.findings.push({ field, why, source });
  }

  unsure(field: string, why: string): void {
    this.unknowns.push(`${field}: ${why}`);
  }

  result(): Judgement {
    const verdict =
      this.findings.length > 0 ? "invalid" : this.unknowns.length > 0 ? "unknown" : "valid";
    return { verdict, findings: this.findings, unknowns: this.unknowns };
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
