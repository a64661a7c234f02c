import { load } from "js-yaml";
import { buildConfigMap, configHash } from "./configmap";
import {
  EXPORTER_DEFAULT_COLLECTORS,
  EXPORTER_DSN,
  exporterArgs,
  metricsContainer,
  renderExporterWebConfig,
  renderPgIdent,
} from "./metrics-sidecar";
import { renderPgHba } from "./postgresql-conf";
import { buildStatefulSet } from "./statefulset";
import { input } from "../../../test/unit/builder-fixtures";

describe("the metrics sidecar", () => {
  const [sidecar] = metricsContainer(input({ version: "17" }));

  it("runs the image's exporter through metrics.sh, with the flags of the spec's major", () => {
    expect(sidecar.image).toBe("postgres:17");
    expect(sidecar.command).toEqual([
      "/bin/sh",
      "/config/metrics.sh",
      "/usr/bin/prometheus-postgres-exporter",
      ...exporterArgs("17"),
    ]);
    expect(sidecar.ports).toEqual([{ name: "metrics", containerPort: 9187, protocol: "TCP" }]);
  });

  it("logs in as pgkeeper_monitor over the local socket, never the superuser, with no secret", () => {
    expect(sidecar.env).toEqual([{ name: "DATA_SOURCE_NAME", value: EXPORTER_DSN }]);
    expect(EXPORTER_DSN).toMatch(/host=\/controller\/run .*user=pgkeeper_monitor /);
    expect(EXPORTER_DSN).not.toMatch(/password|user=postgres/);
    expect(sidecar.volumeMounts?.map(m => m.mountPath)).toEqual([
      "/config",
      "/controller/run",
      "/tls",
    ]);
    expect(sidecar.volumeMounts?.every(m => m.mountPath === "/controller/run" || m.readOnly)).toBe(
      true,
    );
  });

  it.each(["15", "17", "18"])("turns every built-in collector of %s's exporter off", major => {
    const args = exporterArgs(major);
    expect(args).toEqual(
      expect.arrayContaining(["--disable-default-metrics", "--disable-settings-metrics"]),
    );
    for (const c of EXPORTER_DEFAULT_COLLECTORS[major])
      expect(args).toContain(`--no-collector.${c}`);
    expect(args).toContain("--web.config.file=/config/exporter-web.yaml");
    expect(args).toContain("--extend.query-path=/config/exporter-queries.yaml");
  });

  it("serves TLS with the instance's server certificate", () => {
    expect(load(renderExporterWebConfig())).toEqual({
      tls_server_config: {
        cert_file: "/tls/tls.crt",
        key_file: "/tls/tls.key",
        min_version: "TLS12",
      },
    });
  });

  it("is let in by peer, mapped to the monitor only, ahead of the password rule", () => {
    const hba = renderPgHba({
      allowPlaintext: false,
      enableSuperuserAccess: false,
      transition: false,
    })
      .split("\n")
      .map(l => l.split(/\s+/).join(" "));
    const peer = hba.indexOf("local postgres pgkeeper_monitor peer map=pgkeeper-metrics");
    expect(peer).toBeGreaterThan(0);
    expect(peer).toBeLessThan(hba.indexOf("local all all scram-sha-256"));
    expect(renderPgIdent()).toMatch(/^pgkeeper-metrics\s+postgres\s+pgkeeper_monitor$/m);
  });

  it("is absent, with its files, when spec.monitoring.enabled is false", () => {
    const off = input({ monitoring: { enabled: false } });
    expect(metricsContainer(off)).toEqual([]);
    const names = buildStatefulSet(off, "h").spec!.template.spec!.containers.map(c => c.name);
    expect(names).toEqual(["postgres"]);
    expect(Object.keys(buildConfigMap(off).data!)).not.toContain("metrics.sh");
  });

  it("is in the pod template by default", () => {
    const names = buildStatefulSet(input(), "h").spec!.template.spec!.containers.map(c => c.name);
    expect(names).toEqual(["postgres", "metrics"]);
  });

  it("restarts no pod when only the queries change: metrics.sh restarts the exporter", () => {
    const custom = {
      ...input(),
      customQueries: { mine: { query: "SELECT 1 AS one", metrics: [] } },
    };
    const before = buildConfigMap(input());
    const after = buildConfigMap(custom);
    expect(after.data!["exporter-queries.yaml"]).not.toBe(before.data!["exporter-queries.yaml"]);
    expect(configHash(after)).toBe(configHash(before));
  });
});
