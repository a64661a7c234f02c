/**
 * The apiserver client against a real HTTPS server on loopback (self-signed certificate, token
 * from a file): connection reuse, credentials, query strings, content types and error mapping.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, Server } from "node:https";
import { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage, isNotFound } from "./errors";
import { Connection, KubeApiError, METADATA_ONLY, connect, requester } from "./kube-api";
import { LineSplitter, RawWatchEvent, watchStreamer } from "./kube-watch";

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  contentType?: string;
  accept?: string;
  body: string;
}

let dir: string;
let server: Server;
let port: number;
const seen: Seen[] = [];
let tlsConnections = 0;

/** What the fake apiserver answers, by path prefix. */
function answer(url: string): { status: number; body: unknown } {
  if (url.startsWith("/missing"))
    return {
      status: 404,
      body: { kind: "Status", code: 404, reason: "NotFound", message: 'secrets "x" not found' },
    };
  if (url.startsWith("/empty")) return { status: 200, body: "" };
  return { status: 200, body: { kind: "Thing", url } };
}

/** Watch answers: events split across chunks, a silent stream, a refusal. */
function streamWatch(url: string, res: import("node:http").ServerResponse): void {
  if (url.startsWith("/watch-forbidden")) {
    res.writeHead(403, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", code: 403, reason: "Forbidden", message: "no" }));
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  if (url.startsWith("/watch-silent")) {
    res.write(
      `${JSON.stringify({ type: "BOOKMARK", object: { metadata: { resourceVersion: "1" } } })}\n`,
    );
    return; // then nothing, and the connection stays open
  }
  const lines = [1, 2, 3]
    .map(n =>
      JSON.stringify({
        type: "ADDED",
        object: { metadata: { name: `o${n}`, resourceVersion: `${n}` } },
      }),
    )
    .join("\n");
  const text = `${lines}\n${JSON.stringify({ type: "DELETED", object: { metadata: { name: "o1" } } })}\n`;
  // Chunks that cut lines (and a multi-byte character) anywhere.
  const bytes = Buffer.from(text.replace("o3", "ö3"));
  for (let i = 0; i < bytes.length; i += 7) res.write(bytes.subarray(i, i + 7));
  res.end();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kube-api-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      join(dir, "tls.key"),
      "-out",
      join(dir, "tls.crt"),
    ],
    { stdio: "ignore" },
  );
  server = createServer(
    { key: readFileSync(join(dir, "tls.key")), cert: readFileSync(join(dir, "tls.crt")) },
    (req, res) => {
      let body = "";
      req.on("data", chunk => (body += chunk));
      req.on("end", () => {
        seen.push({
          method: req.method ?? "",
          url: req.url ?? "",
          authorization: req.headers.authorization,
          contentType: req.headers["content-type"],
          accept: req.headers.accept,
          body,
        });
        if (req.url?.startsWith("/watch-")) return streamWatch(req.url, res);
        const { status, body: out } = answer(req.url ?? "");
        res.writeHead(status, { "content-type": "application/json" });
        res.end(out === "" ? "" : JSON.stringify(out));
      });
    },
  );
  server.on("secureConnection", () => tlsConnections++);
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  const ca = readFileSync(join(dir, "tls.crt")).toString("base64");
  const kubeconfig = (user: object) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "c",
          cluster: { server: `https://127.0.0.1:${port}`, "certificate-authority-data": ca },
        },
      ],
      users: [{ name: "u", user }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x",
    });
  writeFileSync(join(dir, "kubeconfig"), kubeconfig({ token: "first-token" }));
  // A credential plugin whose token has always expired: each read of the credentials runs it,
  // and it answers what the token file holds at that moment (a rotation).
  writeFileSync(join(dir, "token"), "first-token");
  writeFileSync(
    join(dir, "credential.sh"),
    `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2000-01-01T00:00:00Z"}}' "$(cat ${join(dir, "token")})"\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(dir, "kubeconfig-exec"),
    kubeconfig({
      exec: {
        apiVersion: "client.authentication.k8s.io/v1",
        command: join(dir, "credential.sh"),
        interactiveMode: "Never",
      },
    }),
  );
});

afterAll(async () => {
  await new Promise(resolve => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen.length = 0;
  tlsConnections = 0;
});

async function client(authRefreshMs = 60_000, kubeconfig = "kubeconfig") {
  const conn: Connection = await connect({ kubeconfig: join(dir, kubeconfig), authRefreshMs });
  return { api: requester(() => Promise.resolve(conn)), close: () => conn.dispatcher.close() };
}

describe("kube-api", () => {
  it("reuses its connections: 200 requests, 50 at a time, open at most 16", async () => {
    const { api, close } = await client();
    await Promise.all(Array.from({ length: 50 }, (_, i) => api("GET", `/a/${i}`)));
    for (let i = 0; i < 150; i++) await api("GET", `/b/${i}`);
    await close();
    expect(seen).toHaveLength(200);
    expect(tlsConnections).toBeGreaterThan(0);
    expect(tlsConnections).toBeLessThanOrEqual(16);
  });

  it("sends the token, query, body and content type; parses the answer", async () => {
    const { api, close } = await client();
    const out = await api<{ url: string }>("PATCH", "/apis/x/v1/namespaces/n/things/t", {
      body: { spec: { a: 1 } },
      contentType: "application/apply-patch+yaml",
      query: { fieldManager: "pepr", force: true, skipped: undefined },
    });
    await close();
    expect(out.url).toBe("/apis/x/v1/namespaces/n/things/t?fieldManager=pepr&force=true");
    expect(seen[0]).toMatchObject({
      method: "PATCH",
      authorization: "Bearer first-token",
      contentType: "application/apply-patch+yaml",
      body: '{"spec":{"a":1}}',
    });
  });

  it("asks for metadata only when told to (a Secret's data never travels)", async () => {
    const { api, close } = await client();
    await api("GET", "/api/v1/namespaces/n/secrets/s", { accept: METADATA_ONLY });
    await api("GET", "/api/v1/namespaces/n/secrets/s");
    await close();
    expect(seen.map(s => s.accept)).toEqual([METADATA_ONLY, "application/json"]);
  });

  it("reads a rotated token once the refresh interval has passed", async () => {
    const rotating = await client(0, "kubeconfig-exec");
    const cached = await client(60_000, "kubeconfig-exec");
    writeFileSync(join(dir, "token"), "first-token");
    await rotating.api("GET", "/one");
    await cached.api("GET", "/one");
    writeFileSync(join(dir, "token"), "second-token");
    await rotating.api("GET", "/two");
    await cached.api("GET", "/two");
    await rotating.close();
    await cached.close();
    expect(seen.map(s => s.authorization)).toEqual([
      "Bearer first-token",
      "Bearer first-token",
      "Bearer second-token",
      "Bearer first-token", // within the refresh interval: the header read before
    ]);
  });

  it("resolves an empty body as undefined", async () => {
    const { api, close } = await client();
    await expect(api("DELETE", "/empty")).resolves.toBeUndefined();
    await close();
  });

  it("throws the status and the Status body, never the request body", async () => {
    const { api, close } = await client();
    const err = await api("POST", "/missing", { body: { data: { password: "s3cret" } } }).catch(
      (e: unknown) => e,
    );
    await close();
    expect(err).toBeInstanceOf(KubeApiError);
    expect(isNotFound(err)).toBe(true);
    expect(errorMessage(err)).toBe('HTTP 404 NotFound: secrets "x" not found');
    // Its own message says why too: status conditions and logs that show it tell the reason.
    expect((err as Error).message).toBe('POST /missing: HTTP 404 NotFound: secrets "x" not found');
    expect(JSON.stringify(err)).not.toContain("s3cret");
    expect(String((err as Error).message)).not.toContain("s3cret");
  });

  it("fails with a clear error when nothing listens", async () => {
    const conn = await connect({ kubeconfig: join(dir, "kubeconfig") });
    const unreachable: Connection = { ...conn, server: new URL("https://127.0.0.1:1") };
    const api = requester(() => Promise.resolve(unreachable));
    const err = await api("GET", "/x").catch((e: unknown) => e);
    await conn.dispatcher.close();
    expect(errorMessage(err)).toMatch(/ECONNREFUSED/);
  });

  it("refuses a kubeconfig without a current cluster", async () => {
    writeFileSync(join(dir, "bad"), JSON.stringify({ apiVersion: "v1", kind: "Config" }));
    await expect(connect({ kubeconfig: join(dir, "bad") })).rejects.toThrow(/no current cluster/);
  });
});

describe("kube-watch: a watch request as a stream of events", () => {
  async function watcher() {
    const conn: Connection = await connect({ kubeconfig: join(dir, "kubeconfig") });
    return { watch: watchStreamer(() => Promise.resolve(conn)), conn };
  }

  it("yields each event whole however the chunks cut the lines, with the query and token", async () => {
    const { watch, conn } = await watcher();
    const events: RawWatchEvent[] = [];
    const signal = new AbortController().signal;
    for await (const e of watch(
      "/watch-stream",
      { labelSelector: "a=b", resourceVersion: "5" },
      { signal, idleMs: 5000 },
    ))
      events.push(e);
    expect(
      events.map(e => `${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`),
    ).toEqual(["ADDED o1", "ADDED o2", "ADDED ö3", "DELETED o1"]);
    const request = seen.find(r => r.url.startsWith("/watch-stream"))!;
    expect(new URL(request.url, "https://x").searchParams.get("watch")).toBe("true");
    expect(request.url).toContain("labelSelector=a%3Db");
    expect(request.authorization).toBe("Bearer first-token");
    await conn.streams.close();
  });

  it("ends a silent stream with an error after idleMs", async () => {
    const { watch, conn } = await watcher();
    const signal = new AbortController().signal;
    const events: string[] = [];
    await expect(
      (async () => {
        for await (const e of watch("/watch-silent", {}, { signal, idleMs: 300 }))
          events.push(e.type);
      })(),
    ).rejects.toThrow(/timeout/i);
    expect(events).toEqual(["BOOKMARK"]);
    await conn.streams.destroy();
  });

  it("stops when aborted", async () => {
    const { watch, conn } = await watcher();
    const abort = new AbortController();
    const events: string[] = [];
    const done = (async () => {
      for await (const e of watch("/watch-silent", {}, { signal: abort.signal, idleMs: 60_000 })) {
        events.push(e.type);
        abort.abort();
      }
    })();
    await expect(done).rejects.toThrow(/abort/i);
    expect(events).toEqual(["BOOKMARK"]);
    await conn.streams.destroy();
  });

  it("a refusal is a KubeApiError with the apiserver's status", async () => {
    const { watch, conn } = await watcher();
    const signal = new AbortController().signal;
    const failure = (async () => {
      for await (const e of watch("/watch-forbidden", {}, { signal, idleMs: 1000 })) void e;
    })();
    await expect(failure).rejects.toMatchObject({ status: 403, name: "KubeApiError" });
    await conn.streams.close();
  });

  it.each<[string, string[], string[][]]>([
    ["one chunk, a blank line, an unfinished one", ['{"a":1}\n\n{"b"'], [['{"a":1}']]],
    ["a line in three chunks", ['{"a', '":', "1}\n"], [[], [], ['{"a":1}']]],
    [
      "a line's end and the next lines",
      ['{"a"', ':1}\n{"b":2}\n{"c"', ":3}\n"],
      [[], ['{"a":1}', '{"b":2}'], ['{"c":3}']],
    ],
    ["empty chunks", ["", '{"a":1}', "", "\n"], [[], [], [], ['{"a":1}']]],
  ])("the line splitter: %s", (_name, chunks, expected) => {
    const splitter = new LineSplitter();
    expect(chunks.map(c => splitter.push(c))).toEqual(expected);
  });

  it("the line splitter counts the unfinished line, and forgets a finished one", () => {
    const splitter = new LineSplitter();
    splitter.push("abc");
    splitter.push("de");
    expect(splitter.pending).toBe(5);
    splitter.push("\nxy");
    expect(splitter.pending).toBe(2);
    splitter.push("\n");
    expect(splitter.pending).toBe(0);
  });
});
