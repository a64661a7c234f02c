import { backoffDelay, JITTER_FRACTION } from "./backoff";

const policy = { baseMs: 1000, capMs: 300_000 };

describe("backoffDelay", () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 8000],
    [9, 256_000],
    [10, 300_000], // 512 s capped
    [50, 300_000],
    [5000, 300_000], // 2^4999 would overflow to Infinity
    [Infinity, 300_000],
    [0, 1000], // attempts below 1 count as the first
    [-3, 1000],
    [NaN, 1000],
    [2.7, 2000], // fractional attempts round down
  ])("attempt %p → %p ms", (attempt, expected) => {
    expect(backoffDelay(attempt, policy)).toBe(expected);
  });

  it.each([
    [{ baseMs: 0, capMs: 1000 }, 5000, 0],
    [{ baseMs: 500, capMs: 200 }, 1, 200], // cap below base wins
    [{ baseMs: 10, capMs: 60_000 }, 4, 80],
    [{ baseMs: 1000, capMs: 0 }, 3, 0],
  ])("policy %p, attempt %p → %p ms", (p, attempt, expected) => {
    expect(backoffDelay(attempt, p)).toBe(expected);
  });

  it.each([
    [0, 1, 900], // lowest random → -10 %
    [0.5, 1, 1000],
    [0.999, 1, 1100], // highest random → +10 % (rounded)
    [0.25, 3, 3800],
    [0.75, 3, 4200],
    [0.999, 20, 300_000], // at the cap, jitter never goes above it
    [0, 20, 270_000], // but may go below
    [NaN, 2, 2000], // broken source: no jitter
    [-5, 2, 1800], // clamped into [0, 1]
    [7, 2, 2200],
  ])("jitter source %p, attempt %p → %p ms", (r, attempt, expected) => {
    expect(backoffDelay(attempt, policy, () => r)).toBe(expected);
  });

  it("stays within ±JITTER_FRACTION for random sources", () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(4, policy, Math.random);
      expect(d).toBeGreaterThanOrEqual(8000 * (1 - JITTER_FRACTION));
      expect(d).toBeLessThanOrEqual(8000 * (1 + JITTER_FRACTION));
      expect(Number.isInteger(d)).toBe(true);
    }
  });
});
