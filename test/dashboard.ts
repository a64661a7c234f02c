/**
 * The metric names the Grafana dashboard's panels query (deploy/monitoring/grafana-dashboard.json),
 * for the tests that compare them with what is really exported.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

interface Panel {
  title?: string;
  targets?: { expr: string }[];
}

const DASHBOARD = path.join(__dirname, "..", "deploy", "monitoring", "grafana-dashboard.json");

/** Every metric name `prefix…` a panel's expressions name, with the panel's title. */
export function dashboardMetrics(prefix: RegExp): [string, string][] {
  const { panels } = JSON.parse(readFileSync(DASHBOARD, "utf8")) as { panels: Panel[] };
  return panels.flatMap(p =>
    (p.targets ?? []).flatMap(t =>
      [...t.expr.matchAll(new RegExp(`\\b${prefix.source}[a-zA-Z0-9_]*`, "g"))].map(
        m => [p.title ?? "", m[0]] as [string, string],
      ),
    ),
  );
}
