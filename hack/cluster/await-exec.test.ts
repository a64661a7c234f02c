/**
 * await_exec (await-exec.sh): a component whose exec has not happened yet is starting, not gone.
 * The race it closes: the liveness check compared /proc/PID/exe with the binary while the PID
 * still ran the bash subshell that execs it.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";

const SCRIPT = path.join(__dirname, "await-exec.sh");
const SLEEP = execFileSync("bash", ["-c", 'readlink -f "$(command -v sleep)"'], {
  encoding: "utf8",
}).trim();

/** Starts `child` in the background as cluster.sh does, then prints what the check answers. */
const answer = (child: string, check: string): string =>
  execFileSync(
    "bash",
    [
      "-c",
      `source "$1"; ${child} & pid=$!; if ${check} "$pid" "$2"; then echo running; else echo gone; fi; kill "$pid" 2>/dev/null; wait 2>/dev/null; true`,
      "bash",
      SCRIPT,
      SLEEP,
    ],
    { encoding: "utf8" },
  ).trim();

/** The check as it was: the PID's exe right away. */
const IMMEDIATE = `immediate() { [[ "$(readlink "/proc/$1/exe")" == "$2" ]]; }; immediate`;

/** A subshell that execs the binary only after a while, as a loaded machine delays it. */
const LATE_EXEC = `(sleep 0.3; exec "${SLEEP}" 5)`;

describe("await_exec", () => {
  it("the check without it calls a component that has not exec'd yet gone (the race)", () => {
    expect(answer(LATE_EXEC, IMMEDIATE)).toBe("gone");
  });

  it("waits for the exec, and the component counts as running", () => {
    expect(answer(LATE_EXEC, "await_exec")).toBe("running");
  });

  it("says gone for a process that ends without running the binary", () => {
    expect(answer("(sleep 0.2; exit 3)", "await_exec")).toBe("gone");
  });
});
