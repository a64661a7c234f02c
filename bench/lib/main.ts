/**
 * Runs a bench's main and ends the process when it is done: exit 0, or 1 after printing what it
 * threw. Ended rather than left to drain, because keep-alive sockets (bench/lib/apiclient.ts's
 * agents) hold the event loop for a minute or more after the figures, which a smoke run pays for.
 */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
