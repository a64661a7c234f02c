/**
 * `work`, or the error `expire()` returns once `ms` have passed (`expire` runs only then: it may
 * close what `work` waits on). An expired timer's verdict waits one turn of the event loop
 * (setImmediate): after the loop stalled (a long pass, a starved machine), Node runs expired
 * timers before it reads the sockets, and an answer that arrived during the stall would lose to
 * its own timeout, a healthy server counted as failing. A server that is really silent costs
 * that one turn more.
 */
export function within<T>(work: Promise<T>, ms: number, expire: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(expire());
        }),
      ms,
    );
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    work.then(
      value => settle(() => resolve(value)),
      (err: unknown) => settle(() => reject(err)),
    );
  });
}
