import { stopWhenOrphaned } from "../e2e/load/orphan-guard";

describe("stopWhenOrphaned (the write load's child process)", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it.each<[string, number[], number]>([
    ["its parent alive", [100, 100, 100, 100], 0],
    ["reparented once its parent died", [100, 100, 1, 1, 1], 1],
    ["reparented to a subreaper, not PID 1", [100, 4242, 4242], 1],
  ])("%s: told %p times", (_what, pids, told) => {
    const read = [...pids];
    const onOrphaned = jest.fn();
    stopWhenOrphaned(onOrphaned, () => (read.length > 1 ? read.shift()! : read[0]), 1000);
    jest.advanceTimersByTime(1000 * pids.length);
    expect(onOrphaned).toHaveBeenCalledTimes(told);
  });

  it("is quiet once cancelled", () => {
    let pid = 100;
    const onOrphaned = jest.fn();
    const guard = stopWhenOrphaned(onOrphaned, () => pid, 1000);
    guard.cancel();
    pid = 1;
    jest.advanceTimersByTime(5000);
    expect(onOrphaned).not.toHaveBeenCalled();
  });
});
