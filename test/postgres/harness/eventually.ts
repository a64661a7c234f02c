const sleep = (ms: number): Promise<void> => new Promise(r => setTimeout(r, ms));

/** Retries `check` (which throws or returns a value) until it passes; rethrows its last error. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}
