import { CRD_REVISION, CRD_REVISION_ANNOTATION, allCrds } from "../api/crd";
import { KubeApiError, KubeRequest, RequestOptions } from "../lib/kube-api";
import { crdAction, installCrds, installCrdsWhileWanted } from "./crds";

describe("crdAction", () => {
  it.each<[string, string | undefined, number, string]>([
    ["absent", undefined, 3, "apply"],
    ["applied by hand before revisions existed", undefined, 1, "apply"],
    ["an older revision", "2", 3, "apply"],
    ["the same revision (a no-op write; repairs a hand edit)", "3", 3, "apply"],
    ["a newer revision: an older operator must not take fields away", "4", 3, "keep-newer"],
    ["unreadable", "three", 3, "apply"],
  ])("%s", (_, live, ours, action) => {
    expect(crdAction(live, ours)).toBe(action);
  });
});

describe("installCrds", () => {
  /** An apiserver holding CRDs by name; records every request. */
  const apiserver = (live: Record<string, object>) => {
    const sent: string[] = [];
    const api: KubeRequest = async <T>(method: string, path: string, options?: RequestOptions) => {
      sent.push(`${method} ${path} ${JSON.stringify(options?.query ?? {})}`);
      const name = path.split("/").pop()!;
      if (method === "GET") {
        if (!live[name]) throw new KubeApiError(404, { reason: "NotFound" }, method, path);
        return live[name] as T;
      }
      return options?.body as T;
    };
    return { api, sent };
  };
  const names = allCrds().map(c => (c.metadata as { name: string }).name);

  it("applies every CRD that is absent, server-side and forced, under its own field manager", async () => {
    const { api, sent } = apiserver({});
    expect(await installCrds(api)).toEqual(names.map(name => ({ name, action: "apply" })));
    expect(sent.filter(s => s.startsWith("PATCH"))).toEqual(
      names.map(
        name =>
          `PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name} {"fieldManager":"pgkeeper-crds","fieldValidation":"Strict","force":true}`,
      ),
    );
  });

  it("leaves a CRD of a newer revision alone and applies the others", async () => {
    const newer = {
      metadata: { annotations: { [CRD_REVISION_ANNOTATION]: `${CRD_REVISION + 1}` } },
    };
    const { api, sent } = apiserver({ [names[0]]: newer });
    expect(await installCrds(api)).toEqual([
      { name: names[0], action: "keep-newer", liveRevision: `${CRD_REVISION + 1}` },
      ...names.slice(1).map(name => ({ name, action: "apply" })),
    ]);
    expect(sent.some(s => s.startsWith(`PATCH`) && s.includes(names[0]))).toBe(false);
  });

  it("fails on any other error of the apiserver (the caller retries)", async () => {
    const api: KubeRequest = async (method, path) => {
      throw new KubeApiError(403, { reason: "Forbidden" }, method, path);
    };
    await expect(installCrds(api)).rejects.toThrow("HTTP 403");
  });
});

describe("installCrdsWhileWanted", () => {
  const loop = (wanted: () => boolean) => {
    const seen: string[] = [];
    return {
      seen,
      loop: {
        wanted,
        retryMs: 5,
        sleep: async (ms: number) => void seen.push(`sleep ${ms}`),
        onInstalled: (o: unknown[]) => void seen.push(`installed ${o.length}`),
        onError: (err: unknown, attempt: number) =>
          void seen.push(`error ${attempt}: ${(err as Error).message.split(":")[0]}`),
      },
    };
  };

  it("retries until the apiserver answers", async () => {
    let failures = 2;
    const api: KubeRequest = async <T>(method: string, path: string, options?: RequestOptions) => {
      if (failures > 0) {
        failures--;
        throw new KubeApiError(503, {}, method, path);
      }
      if (method === "GET") throw new KubeApiError(404, {}, method, path);
      return options?.body as T;
    };
    const { seen, loop: l } = loop(() => true);
    await installCrdsWhileWanted(api, l);
    expect(seen).toEqual([
      "error 1: GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.pgkeeper.dev",
      "sleep 5",
      "error 2: GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/databases.pgkeeper.dev",
      "sleep 5",
      `installed ${allCrds().length}`,
    ]);
  });

  it("stops when no longer wanted (leadership lost)", async () => {
    let leading = true;
    const api: KubeRequest = async (method, path) => {
      leading = false;
      throw new KubeApiError(503, {}, method, path);
    };
    const { seen, loop: l } = loop(() => leading);
    await installCrdsWhileWanted(api, l);
    expect(seen).toHaveLength(2);
  });
});
