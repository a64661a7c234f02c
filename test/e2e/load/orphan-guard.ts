/**
 * A child process that must not outlive the process that started it: the write load, whose
 * parent (a test, a bench) may be killed before it can stop it. Node reparents an orphan, so its
 * parent PID changes; the child then stops itself (a load left writing to a cluster long gone cost
 * a later benchmark 8% of a core for an hour).
 */

/** Calls `onOrphaned` once, when the parent PID read by `parentPid` differs from the first one. */
export function stopWhenOrphaned(
  onOrphaned: () => void,
  parentPid: () => number = () => process.ppid,
  everyMs = 1000,
): { cancel: () => void } {
  const parent = parentPid();
  const timer = setInterval(() => {
    if (parentPid() === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, everyMs);
  timer.unref();
  return { cancel: () => clearInterval(timer) };
}
