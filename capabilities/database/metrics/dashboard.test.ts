/**
 * The Grafana dashboard (deploy/monitoring/grafana-dashboard.json) queries only metrics that
 * exist: every `pgkeeper_*` one is registered by the operator's metrics, as a scrape of it
 * shows. The `pg_*` ones are PostgreSQL's, from the instances' sidecar: the e2e metrics test
 * compares them with a real scrape of each instance.
 */
import { Registry } from "prom-client";
import { OperatorMetrics } from "./metrics";
import { dashboardMetrics } from "../../../test/dashboard";

describe("the dashboard's operator panels", () => {
  it("query only metrics the operator registers", async () => {
    const registry = new Registry();
    new OperatorMetrics(registry);
    const registered = new Set((await registry.getMetricsAsJSON()).map(m => m.name));
    const used = dashboardMetrics(/pgkeeper_/);
    expect(used.length).toBeGreaterThan(5);
    // A histogram is registered by its name, and queried by its series'.
    const family = (name: string) => name.replace(/_(bucket|count|sum)$/, "");
    expect(
      used.filter(([, name]) => !registered.has(name) && !registered.has(family(name))),
    ).toEqual([]);
  });
});
