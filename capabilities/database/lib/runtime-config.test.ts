import { defaultIdentity, readRuntimeConfig } from "./runtime-config";

describe("readRuntimeConfig", () => {
  it("defaults: leader election on, CloudNativePG's timings, metrics on 9464, Pepr on 3000", () => {
    const cfg = readRuntimeConfig({ HOSTNAME: "pepr-pgkeeper-watcher-abc" });
    expect(cfg).toEqual({
      leaderElection: {
        enabled: true,
        identity: "pepr-pgkeeper-watcher-abc",
        leaseName: "pgkeeper-leader",
        leaseNamespace: "pepr-system",
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      },
      metricsPort: 9464,
      peprPort: 3000,
    });
  });

  it.each([
    ["PGKEEPER_LEADER_ELECTION", "false", c => c.leaderElection.enabled, false],
    ["PGKEEPER_LEADER_ELECTION", "FALSE", c => c.leaderElection.enabled, false],
    ["PGKEEPER_LEADER_ELECTION", "true", c => c.leaderElection.enabled, true],
    ["PGKEEPER_LEADER_IDENTITY", "op-a", c => c.leaderElection.identity, "op-a"],
    ["PGKEEPER_LEASE_NAME", "x", c => c.leaderElection.leaseName, "x"],
    ["PGKEEPER_LEASE_NAMESPACE", "ops", c => c.leaderElection.leaseNamespace, "ops"],
    ["POD_NAMESPACE", "ops", c => c.leaderElection.leaseNamespace, "ops"],
    ["PGKEEPER_METRICS_PORT", "0", c => c.metricsPort, 0],
    ["PGKEEPER_METRICS_PORT", "9500", c => c.metricsPort, 9500],
    ["PGKEEPER_METRICS_PORT", "70000", c => c.metricsPort, 9464],
    ["PGKEEPER_METRICS_PORT", "abc", c => c.metricsPort, 9464],
    ["PGKEEPER_PEPR_PORT", "3101", c => c.peprPort, 3101],
    ["PGKEEPER_METRICS_TOKEN_FILE", "/t/token", c => c.metricsTokenFile, "/t/token"],
    ["PGKEEPER_METRICS_TOKEN_FILE", " ", c => c.metricsTokenFile, undefined],
    // One TLS file alone is refused, never served as plain HTTP.
    ["PGKEEPER_METRICS_TLS_CERT_FILE", "/t/tls.crt", c => c.metricsTls, undefined],
    [
      "PGKEEPER_METRICS_TLS_CERT_FILE",
      "/t/tls.crt",
      c => c.metricsConfigError,
      "PGKEEPER_METRICS_TLS_CERT_FILE and PGKEEPER_METRICS_TLS_KEY_FILE must be set together",
    ],
    [
      "PGKEEPER_METRICS_TLS_KEY_FILE",
      "/t/tls.key",
      c => c.metricsConfigError,
      "PGKEEPER_METRICS_TLS_CERT_FILE and PGKEEPER_METRICS_TLS_KEY_FILE must be set together",
    ],
  ] as [string, string, (c: ReturnType<typeof readRuntimeConfig>) => unknown, unknown][])(
    "%s=%s",
    (name, value, pick, expected) => {
      expect(pick(readRuntimeConfig({ HOSTNAME: "h", [name]: value }))).toEqual(expected);
    },
  );

  it("serves metrics over TLS with both files set", () => {
    const cfg = readRuntimeConfig({
      PGKEEPER_METRICS_TLS_CERT_FILE: "/t/tls.crt",
      PGKEEPER_METRICS_TLS_KEY_FILE: "/t/tls.key",
    });
    expect(cfg.metricsTls).toEqual({ certFile: "/t/tls.crt", keyFile: "/t/tls.key" });
    expect(cfg.metricsConfigError).toBeUndefined();
  });

  it.each([
    [{ d: "6", r: "4", p: "1" }, [6000, 4000, 1000]],
    [{ d: "15", r: "15", p: "2" }, [15000, 10000, 2000]], // deadline must be < duration
    [{ d: "15", r: "10", p: "10" }, [15000, 10000, 2000]], // retry must be < deadline
    [{ d: "x", r: "10", p: "2" }, [15000, 10000, 2000]],
    [{ d: "3", r: "2", p: "0.5" }, [3000, 2000, 500]],
  ])("lease timings %j", (t, [duration, deadline, retry]) => {
    const cfg = readRuntimeConfig({
      PGKEEPER_LEASE_DURATION_SECONDS: t.d,
      PGKEEPER_LEASE_RENEW_DEADLINE_SECONDS: t.r,
      PGKEEPER_LEASE_RETRY_PERIOD_SECONDS: t.p,
    }).leaderElection;
    expect([cfg.leaseDurationMs, cfg.renewDeadlineMs, cfg.retryPeriodMs]).toEqual([
      duration,
      deadline,
      retry,
    ]);
  });

  it("identity outside Kubernetes: host name and PID", () => {
    expect(defaultIdentity({}, 42, "laptop")).toBe("laptop_42");
    expect(defaultIdentity({ HOSTNAME: "pod-1" }, 42, "laptop")).toBe("pod-1");
  });
});
