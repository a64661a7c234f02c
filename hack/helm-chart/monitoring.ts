/**
 * deploy/monitoring as optional templates: the metrics Service and the ServiceMonitor that
 * scrapes through it (metrics.serviceMonitor.enabled), and the Grafana dashboard as a ConfigMap
 * the Grafana sidecar picks up by its label (metrics.dashboard.enabled).
 */
import type { KubernetesObject, V1ConfigMap } from "@kubernetes/client-node";
import { textBlock } from "./placeholders";
import { renderedIf, renderTemplate, templateFileName } from "./render";

export interface MonitoringInput {
  metricsService: KubernetesObject;
  serviceMonitor: KubernetesObject;
  dashboardJson: string;
}

/** Where the dashboard sits in the chart: a file, so its `{{pod}}` legends are not templated. */
export const DASHBOARD_FILE = "files/grafana-dashboard.json";
export const DASHBOARD_CONFIGMAP = "pgkeeper-grafana-dashboard";
export const SERVICE_MONITOR_ENABLED = ".Values.metrics.serviceMonitor.enabled";
export const DASHBOARD_ENABLED = ".Values.metrics.dashboard.enabled";

/** The dashboard's ConfigMap, in the operator's namespace beside the ServiceMonitor. */
export function dashboardConfigMap(namespace: string): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: DASHBOARD_CONFIGMAP,
      namespace,
      // The label the Grafana sidecar (kube-prometheus-stack's default) looks for.
      labels: { "app.kubernetes.io/name": "pgkeeper", grafana_dashboard: "1" },
    },
    data: {},
  };
}

/** Template file path → text, and the dashboard as a file of the chart. */
export function monitoringFiles(m: MonitoringInput, namespace: string): Record<string, string> {
  for (const o of [m.metricsService, m.serviceMonitor]) {
    if (o.metadata?.namespace !== namespace) {
      throw new Error(`${o.kind} ${o.metadata?.name} is not in ${namespace}`);
    }
  }
  JSON.parse(m.dashboardJson); // a broken dashboard fails the build, not Grafana's import
  const dashboard = renderTemplate(dashboardConfigMap(namespace), (cm, p) => ({
    ...cm,
    data: { "pgkeeper.json": p.value(textBlock(`.Files.Get "${DASHBOARD_FILE}"`)) },
  }));
  return {
    [`templates/${templateFileName(m.metricsService)}`]: renderedIf(
      SERVICE_MONITOR_ENABLED,
      renderTemplate(m.metricsService),
    ),
    [`templates/${templateFileName(m.serviceMonitor)}`]: renderedIf(
      SERVICE_MONITOR_ENABLED,
      renderTemplate(m.serviceMonitor),
    ),
    [`templates/${templateFileName(dashboardConfigMap(namespace))}`]: renderedIf(
      DASHBOARD_ENABLED,
      dashboard,
    ),
    [DASHBOARD_FILE]: m.dashboardJson,
  };
}
