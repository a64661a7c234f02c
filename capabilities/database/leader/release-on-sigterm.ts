/**
 * On SIGTERM the leader gives its Lease up before the process ends, so the other watcher leads at
 * its next attempt (2 s) instead of when the Lease expires (15 s). Pepr's own SIGTERM handler
 * ends the process as soon as its server has closed, a tick later: before the release's request
 * is answered. So once SIGTERM came, an exit waits for the release, never longer than `waitMs`
 * (the kubelet's grace period is longer; a release that hangs must not hold the pod).
 */

/** The part of `process` this needs (a fake in tests). */
export interface Exiting {
  once(signal: "SIGTERM", handler: () => void): unknown;
  exit(code?: number): never;
}

export const RELEASE_WAIT_MS = 3000;

export function releaseOnSigterm(
  release: () => Promise<void>,
  proc: Exiting = process,
  waitMs = RELEASE_WAIT_MS,
): void {
  proc.once("SIGTERM", () => {
    const exit = proc.exit.bind(proc);
    const released = Promise.race([
      release().catch(() => undefined), // best effort: the Lease expires anyway
      new Promise<void>(resolve => setTimeout(resolve, waitMs).unref()),
    ]);
    let exiting = false;
    proc.exit = ((code?: number) => {
      if (!exiting) {
        exiting = true;
        void released.then(() => exit(code));
      }
      return undefined as never;
    }) as Exiting["exit"];
  });
}
