/**
 * The admission webhook's certificate: `pepr build` makes it, valid for one year, and nothing
 * renews it; once it ends the apiserver cannot call the webhook and, with failurePolicy Fail,
 * every Database write fails. Both operator Deployments mount it (/etc/certs), so the watcher
 * reads its end there, with no API call, and says so in a metric and a warning a month ahead.
 */
import { X509Certificate } from "node:crypto";

/** Where Pepr mounts the webhook's TLS Secret in its pods. */
export const WEBHOOK_CERTIFICATE_FILE = "/etc/certs/tls.crt";
/** How long before the end the warning starts: time for a deploy in a change window. */
export const WARN_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** The certificate's end, from its PEM. Throws on anything that is not a certificate. */
export const notAfterOf = (pem: string): Date => new Date(new X509Certificate(pem).validTo);

/** The warning for a certificate ending at `notAfter`, seen at `now`, or undefined. */
export function expiryWarning(notAfter: Date, now: Date): string | undefined {
  const left = notAfter.getTime() - now.getTime();
  if (left > WARN_BEFORE_MS) return undefined;
  const when = notAfter.toISOString();
  return left <= 0
    ? `The admission webhook's certificate ended at ${when}: Database writes fail until the operator is deployed again (pepr deploy, or a new build's chart)`
    : `The admission webhook's certificate ends at ${when}, in ${Math.ceil(left / 86_400_000)} days: deploy the operator again before then (pepr deploy, or a new build's chart), or every Database write fails`;
}
