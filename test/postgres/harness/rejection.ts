/** How `work` was rejected, and after how long (ms); throws when it resolves instead. */
export async function rejection(
  work: Promise<unknown>,
): Promise<{ err: Error & { code?: string }; ms: number }> {
  const started = Date.now();
  try {
    await work;
  } catch (err) {
    return { err: err as Error, ms: Date.now() - started };
  }
  throw new Error("expected a rejection");
}
