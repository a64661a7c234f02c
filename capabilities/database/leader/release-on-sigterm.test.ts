import { EventEmitter } from "node:events";
import { Exiting, releaseOnSigterm } from "./release-on-sigterm";

/** A process whose exits are recorded, and a release that ends when told. */
function setup(waitMs = 1000, failing = false) {
  const emitter = new EventEmitter();
  const exits: (number | undefined)[] = [];
  const proc: Exiting = {
    once: (signal, handler) => emitter.once(signal, handler),
    exit: (code?: number) => {
      exits.push(code);
      return undefined as never;
    },
  };
  let finishRelease: () => void = () => undefined;
  let releases = 0;
  const release = () => {
    releases++;
    if (failing) return Promise.reject(new Error("apiserver gone"));
    return new Promise<void>(resolve => (finishRelease = resolve));
  };
  releaseOnSigterm(release, proc, waitMs);
  const flush = () => new Promise(resolve => setImmediate(resolve));
  return { emitter, exits, proc, finish: () => finishRelease(), releases: () => releases, flush };
}

describe("releaseOnSigterm", () => {
  it("does nothing until SIGTERM", () => {
    const { exits, proc } = setup();
    proc.exit(0);
    expect(exits).toEqual([0]);
  });

  it("after SIGTERM, Pepr's exit waits for the release, then exits with its code once", async () => {
    const { emitter, exits, proc, finish, releases, flush } = setup();
    emitter.emit("SIGTERM");
    expect(releases()).toBe(1);
    proc.exit(143);
    proc.exit(143);
    await flush();
    expect(exits).toEqual([]);
    finish();
    await flush();
    expect(exits).toEqual([143]);
  });

  it("a release that hangs holds the exit no longer than the wait", async () => {
    jest.useFakeTimers();
    try {
      const { emitter, exits, proc } = setup(3000);
      emitter.emit("SIGTERM");
      proc.exit(143);
      await jest.advanceTimersByTimeAsync(2999);
      expect(exits).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(exits).toEqual([143]);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a release that fails still lets the process exit", async () => {
    const { emitter, exits, proc, flush } = setup(1000, true);
    emitter.emit("SIGTERM");
    proc.exit(143);
    await flush();
    expect(exits).toEqual([143]);
  });
});
