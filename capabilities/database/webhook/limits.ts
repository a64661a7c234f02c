/**
 * What an admission request may weigh before any of Pepr's code or ours touches it. A Database or
 * Backup is a few kilobytes; these limits sit far above any real one and far below what would let
 * one request stall the server for the others.
 */
export interface AdmissionLimits {
  /**
   * Body of one AdmissionReview. Below the apiserver's own (3 MiB per object, and a review carries
   * the object and the old one), so an oversized object meets our denial instead of a 413 that
   * the apiserver reports as a failed webhook. Equal to the limit Pepr's own parser had, so no
   * request that passed before is refused now.
   */
  maxBodyBytes: number;
  /** Nesting of the parsed review: Pepr copies the request recursively (deeper overflows its stack). */
  maxDepth: number;
  /** Objects, arrays and values in the parsed review: bounds the work any rule can be handed. */
  maxNodes: number;
  /**
   * Bytes read (and thrown away) past maxBodyBytes to answer a too-large request politely; a
   * sender of more than this gets its connection closed instead.
   */
  maxDrainBytes: number;
  /**
   * How long a sender cut off at maxDrainBytes may go on sending (thrown away) after our answer
   * and FIN, so that its kernel delivers the answer instead of dropping it on our reset.
   */
  lingerMs: number;
  /**
   * How long an idle keep-alive connection stays open. Above the apiserver's own idle timeout for
   * its webhook clients (Go's 90 s), so the apiserver always closes first: with Node's default of
   * 5 s the server closed connections the apiserver was about to reuse, and the review sent on one
   * failed with "connection reset by peer" (Go does not resend a POST), a 500 for someone's
   * ordinary create. CI stop 22 saw it once in 472 corpus requests.
   */
  keepAliveMs: number;
}

export const ADMISSION_LIMITS: AdmissionLimits = {
  maxBodyBytes: 2 * 1024 * 1024,
  maxDepth: 64,
  maxNodes: 100_000,
  maxDrainBytes: 16 * 1024 * 1024,
  lingerMs: 5000,
  keepAliveMs: 120_000,
};
