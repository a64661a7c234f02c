/**
 * One renewal policy for every certificate of a Database (ADR 0021): the CA lives ten years and is
 * replaced only when less than a year is left (every leaf it signs must get its full year);
 * leaves live a year and are renewed by the same CA a month before they end.
 */
export const DAY_MS = 24 * 3600 * 1000;
export const CA_LIFETIME_DAYS = 3650;
export const LEAF_LIFETIME_DAYS = 365;
export const RENEW_BEFORE_DAYS = 30;

/** A minute back: a node whose clock is slightly behind must not see a certificate from the future. */
export const notBeforeFor = (now: Date): Date => new Date(now.getTime() - 60_000);

/** Whether `validTo` (X509Certificate's form) falls within `days` of `now`. */
export const endsWithin = (validTo: string, now: Date, days: number): boolean =>
  Date.parse(validTo) <= now.getTime() + days * DAY_MS;
