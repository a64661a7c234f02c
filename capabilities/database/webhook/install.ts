/**
 * Puts the admission guard in front of the HTTPS server Pepr creates. Pepr keeps its Express app
 * private and creates the server inside `start`; for the duration of that call only,
 * `https.createServer` wraps the listener it is given. ADR 0015 has the alternatives.
 */
import https from "node:https";
import { Log } from "pepr";
import { GuardLog, RequestListener, guardAdmission } from "./guard";
import { ADMISSION_LIMITS, AdmissionLimits } from "./limits";

const log: GuardLog = fields => Log.warn(fields, "Admission request refused before Pepr");

/** Runs `start` with every HTTPS server it creates behind the guard. */
export function withAdmissionGuard(
  start: () => void,
  limits: AdmissionLimits = ADMISSION_LIMITS,
): void {
  const original = https.createServer;
  const guarded = (options: https.ServerOptions, listener: RequestListener) => {
    // Pepr 1.1.4 passes (TLS options, Express app); anything else means it changed under us.
    if (typeof listener !== "function")
      throw new Error("Pepr created its server without a listener");
    const server = original(options, guardAdmission(listener, limits, log));
    server.keepAliveTimeout = limits.keepAliveMs;
    return server;
  };
  https.createServer = guarded as typeof https.createServer;
  try {
    start();
  } finally {
    https.createServer = original;
  }
}
