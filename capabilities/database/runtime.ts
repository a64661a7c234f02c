/**
 * The composition root of the watcher process, run once when the module loads in watch or dev
 * mode: the read cache and its informers, the instance monitor, the controller on the cached
 * Cluster, our metrics endpoint, and leader election. Admission pods and `pepr build` never run it.
 */
import { readFileSync } from "node:fs";
import { Log } from "pepr";
import { register } from "prom-client";
import { validateDatabase } from "./admission/validate";
import { splitDatabaseKey } from "./api/names";
import { CachedCluster } from "./cache/cached-cluster";
import { startInformers } from "./cache/informers";
import { Owners } from "./cache/owners";
import { ObjectCache } from "./cache/object-cache";
import { apiCluster } from "./cluster/api-cluster";
import { installCrdsWhileWanted } from "./cluster/crds";
import { Controller, createController } from "./controller/controller";
import { archivingCondition, pendingBytes } from "./ha/archiving";
import { HaDeps } from "./ha/ha-step";
import * as instanceSql from "./instance/instance-sql";
import { HaMemory } from "./ha/memory";
import { InstanceMonitor } from "./instance/monitor";
import { ProbeSessions } from "./instance/probe-sessions";
import { SERVICE_ACCOUNT_NAMESPACE_FILE, deletionCostPatch, ownPod } from "./leader/deletion-cost";
import { LeaderElector } from "./leader/elector";
import { apiLeaseClient } from "./leader/lease-client";
import { releaseOnSigterm } from "./leader/release-on-sigterm";
import { systemClock } from "./lib/clock";
import { LoopLag } from "./lib/loop-lag";
import { operatorConfig } from "./lib/config";
import { WEBHOOK_CERTIFICATE_FILE, expiryWarning, notAfterOf } from "./lib/certificate-expiry";
import { errorMessage } from "./lib/errors";
import { RuntimeConfig, readRuntimeConfig } from "./lib/runtime-config";
import { kubeRequest } from "./lib/kube-api";
import { OperatorMetrics, metrics } from "./metrics/metrics";
import { serveMetrics } from "./metrics/server";
import { ConvergedChildren } from "./reconcile/converged-children";
import { PasswordMemory } from "./reconcile/password-memory";

/** The webhook certificate is read again this often (it changes only with a deploy). */
const CERTIFICATE_CHECK_MS = 6 * 3600 * 1000;

/**
 * The webhook certificate's end as a metric, and a warning a month before it (lib/certificate-
 * expiry.ts). Outside a pod (`pepr dev`) there is no mounted certificate, and nothing to say.
 */
function watchWebhookCertificate(m: OperatorMetrics, log: typeof Log): void {
  const check = (): void => {
    let pem: string;
    try {
      pem = readFileSync(WEBHOOK_CERTIFICATE_FILE, "utf8");
    } catch {
      return;
    }
    try {
      const notAfter = notAfterOf(pem);
      m.setWebhookCertificateExpiry(notAfter);
      const warning = expiryWarning(notAfter, new Date());
      if (warning) log.warn({ notAfter: notAfter.toISOString() }, warning);
    } catch (err) {
      log.error({ error: errorMessage(err) }, "Cannot read the webhook certificate");
    }
  };
  check();
  setInterval(check, CERTIFICATE_CHECK_MS).unref();
}

/** Pepr runs Watch/Reconcile/Finalize bindings in these processes only. */
export const isWatcherProcess = (env: Record<string, string | undefined> = process.env): boolean =>
  env.PEPR_WATCH_MODE === "true" || env.PEPR_MODE === "dev";

/**
 * Whether Pepr's own Database bindings are registered: not in the watcher, whose informers watch
 * Databases themselves (cache/informers.ts: one copy of each Database rather than one per Pepr
 * binding, Databases listed before their children, and a namespaced install's Roles allow only
 * its namespaces). Elsewhere (admission pods, `pepr build`) they must exist: `pepr build`
 * generates the watcher Deployment from them.
 */
export const peprWatchesDatabases = (watcher: boolean): boolean => !watcher;

let started: Controller | undefined;

/** Starts everything (once) and returns the controller the watch bindings feed. */
export function startWatcherRuntime(runtime: RuntimeConfig = readRuntimeConfig()): Controller {
  if (started) return started;
  const log = Log.child({ component: "runtime" });
  const m = metrics();
  const cache = new ObjectCache();
  const election = runtime.leaderElection;
  // Filled in below; the controller needs `isLeader` before the elector can be built around it.
  const leadership: { elector?: LeaderElector } = {};
  const isLeader = (): boolean => leadership.elector?.isLeader() ?? true;

  // The objects of known Databases and Backups only (cache/owners.ts).
  const owners = new Owners();
  const cluster = new CachedCluster(apiCluster(), cache, owners.owns);
  m.watchCache(() => ({
    objects: cache.sizes(),
    synced: cache.syncedKinds(),
    reads: {
      cache: cluster.reads.cacheHits,
      api_get: cluster.reads.apiGets,
      api_list: cluster.reads.apiLists,
    },
  }));
  const config = operatorConfig();
  // How late the operator's own loop runs, and the node it runs on (learnt from its pod when it
  // starts leading): a probe's silence then may be ours, or a slow node's (ADR 0038).
  const loopLag = new LoopLag();
  loopLag.start();
  let operatorNode: string | undefined;
  // The instance monitor probes over the real SQL edge and wakes the controller on changes.
  const monitor = new InstanceMonitor({
    sql: new ProbeSessions({ acceptCheckMs: config.probeAcceptCheckMs }),
    intervalMs: config.probeIntervalMs,
    timeoutMs: config.probeTimeoutMs,
    failureThreshold: config.probeFailureThreshold,
    onChange: key => {
      const { namespace, name } = splitDatabaseKey(key);
      ctl.wake(namespace, name);
    },
    loopLag,
    operatorNode: () => operatorNode,
    onDiscount: (key, instance, discount, again) => {
      const { namespace, name } = splitDatabaseKey(key);
      m.recordDiscountedSilence(namespace, name, discount.reason);
      if (!again)
        log.warn(
          { namespace, database: name, instance, reason: discount.reason },
          `Probe silence not counted: ${discount.message}`,
        );
    },
  });
  const ha: HaDeps = {
    failureThreshold: config.probeFailureThreshold,
    memory: new HaMemory(),
    onFailover: (namespace, name, seconds) => m.recordFailover(namespace, name, seconds),
    onArchiving: (namespace, name, archiver) =>
      m.setArchiving(
        namespace,
        name,
        archiver && {
          pendingBytes: pendingBytes(archiver),
          failing: archivingCondition(archiver)?.status === "False",
        },
      ),
  };
  const ctl = createController(
    {
      cluster,
      config,
      now: () => new Date(),
      validate: db => validateDatabase(db, undefined, config),
      instances: { sql: instanceSql, monitor },
      ha,
      passwords: new PasswordMemory(),
      converged: new ConvergedChildren(),
    },
    { isLeader, metrics: m, cache },
  );
  started = ctl;
  // Databases, Backups and children, cluster-wide or in a namespaced install's namespaces.
  const namespaced = config.watchNamespaces.length > 0;
  startInformers(
    { cache, owners, onEvent: ctl.onChildEvent },
    {
      namespaces: config.watchNamespaces,
      onDatabase: (phase, db) => (phase === "DELETED" ? ctl.forget(db) : ctl.enqueue(db)),
    },
  );
  if (namespaced)
    log.info({ namespaces: config.watchNamespaces }, "Serving listed namespaces only");

  if (runtime.metricsConfigError) {
    log.error({ error: runtime.metricsConfigError }, "Metrics endpoint not started");
  } else if (runtime.metricsPort > 0) {
    const { metricsPort: port, metricsTls: tls, metricsTokenFile: tokenFile } = runtime;
    serveMetrics(register, { port, ...(tls ? { tls } : {}), ...(tokenFile ? { tokenFile } : {}) })
      .then(() =>
        log.info(
          { port, https: Boolean(tls), token: Boolean(tokenFile) },
          "Serving metrics on /metrics",
        ),
      )
      .catch(err => log.error({ error: errorMessage(err) }, "Metrics endpoint failed to start"));
  }

  watchWebhookCertificate(m, log);

  // The leader installs the CRDs (cluster/crds.ts): `pepr deploy` alone is a whole install. A
  // namespaced install may not write cluster-wide objects: its installer brings the CRDs (Helm's
  // crds/).
  const installOwnCrds = (): void => {
    if (namespaced) return;
    void installCrdsWhileWanted(kubeRequest, {
      wanted: isLeader,
      retryMs: 10_000,
      sleep: ms => new Promise(resolve => setTimeout(resolve, ms)),
      onInstalled: crds => log.info({ crds }, "CRDs installed"),
      onError: (err, attempt) =>
        log.error({ error: errorMessage(err), attempt }, "Could not install the CRDs; retrying"),
    });
  };

  // The leader's pod goes last in a rollout (leader/deletion-cost.ts); only in a pod.
  const pod = ownPod(process.env, () => {
    try {
      return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, "utf8");
    } catch {
      return undefined;
    }
  });
  const markOwnPod = (leading: boolean): void => {
    if (!pod) return;
    kubeRequest<{ spec?: { nodeName?: string } }>(
      "PATCH",
      `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}`,
      { body: deletionCostPatch(leading), contentType: "application/merge-patch+json" },
    )
      .then(patched => (operatorNode = patched.spec?.nodeName ?? operatorNode))
      .catch(err =>
        log.warn({ error: errorMessage(err), leading }, "Could not mark the pod's deletion cost"),
      );
  };

  if (!election.enabled) {
    m.setLeader(true);
    log.info("Leader election off: this process always reconciles");
    installOwnCrds();
    return ctl;
  }
  m.setLeader(false);
  const elector = new LeaderElector({
    client: apiLeaseClient(election.leaseNamespace, election.leaseName),
    clock: systemClock,
    identity: election.identity,
    timings: election,
    log: Log.child({ component: "leader-election", lease: election.leaseName }),
    onStartedLeading: () => {
      m.setLeader(true);
      markOwnPod(true);
      installOwnCrds();
      ctl.startedLeading();
    },
    onStoppedLeading: () => {
      m.setLeader(false);
      markOwnPod(false);
      ctl.stoppedLeading();
    },
  });
  leadership.elector = elector;
  elector.start();
  // A pod being replaced gives the lease up so the other watcher leads at once.
  releaseOnSigterm(() => elector.stop());
  log.info(
    { identity: election.identity, lease: `${election.leaseNamespace}/${election.leaseName}` },
    "Leader election started",
  );
  return ctl;
}
