/**
 * The guard in front of a real HTTP server and Express's JSON parser (what Pepr's server is):
 * ordinary reviews reach the app parsed once; oversized, over-deep, unparsable and encoded ones
 * are answered by the guard; none of them delays the ordinary ones.
 */
import { AddressInfo } from "node:net";
import { Server, createServer, request } from "node:http";
import { gzipSync } from "node:zlib";
import { guardAdmission, GuardLog, RequestListener } from "./guard";
import { AdmissionLimits } from "./limits";

// Express is Pepr's own dependency; its parser must skip what the guard has already read.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require("express") as {
  (): RequestListener & {
    use(handler: unknown): void;
    post(
      path: string,
      handler: (req: { body: unknown }, res: { json(v: unknown): void }) => void,
    ): void;
  };
  json(options: { limit: string }): unknown;
};

const LIMITS: AdmissionLimits = {
  maxBodyBytes: 2 * 1024 * 1024,
  maxDepth: 64,
  maxNodes: 100_000,
  maxDrainBytes: 16 * 1024 * 1024,
  lingerMs: 5000,
  keepAliveMs: 120_000,
};

interface Reply {
  status: number;
  text: string;
  connection?: string;
}

function post(port: number, path: string, body: Buffer | string, headers = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
      },
      res => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", chunk => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            connection: res.headers.connection,
          }),
        );
      },
    );
    // The apiserver's patience with a webhook (Pepr registers timeoutSeconds: 10).
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer within 10 s`)));
    req.on("error", error => {
      // A sender cut off mid-body may see its write fail after the answer has arrived.
      if (answered) return;
      reject(error);
    });
    req.end(body);
  });
}

const review = (uid: string, object: unknown = { spec: { instances: 1 } }) =>
  JSON.stringify({
    kind: "AdmissionReview",
    apiVersion: "admission.k8s.io/v1",
    request: { uid, operation: "CREATE", object },
  });

const deeplyNested = (uid: string, levels: number) =>
  `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"${uid}","object":` +
  '{"a":'.repeat(levels) +
  "1" +
  "}".repeat(levels) +
  "}}";

const padded = (uid: string, bytes: number) =>
  review(uid, { metadata: { annotations: { pad: "x".repeat(bytes) } } });

let server: Server;
let port: number;
const logged: Parameters<GuardLog>[0][] = [];
let appSaw: unknown[] = [];

beforeAll(async () => {
  const app = express();
  app.use(express.json({ limit: "2mb" }));
  app.post("/mutate/:path", (req, res) => {
    appSaw.push(req.body);
    const uid = (req.body as { request: { uid: string } }).request.uid;
    res.json({
      kind: "AdmissionReview",
      apiVersion: "admission.k8s.io/v1",
      response: { uid, allowed: true },
    });
  });
  server = createServer(guardAdmission(app, LIMITS, fields => logged.push(fields)));
  await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise(resolve => server.close(resolve)));
beforeEach(() => {
  appSaw = [];
  logged.length = 0;
});

const responseOf = (reply: Reply) => JSON.parse(reply.text).response;

describe("the admission guard", () => {
  it("hands an ordinary review to the app, parsed once", async () => {
    const reply = await post(port, "/mutate/p", review("u-ordinary"));
    expect(reply.status).toBe(200);
    expect(responseOf(reply)).toEqual({ uid: "u-ordinary", allowed: true });
    expect(appSaw).toEqual([JSON.parse(review("u-ordinary"))]);
    expect(logged).toEqual([]);
  });

  it("answers a body over the limit with a denial carrying the request's uid", async () => {
    const reply = await post(port, "/mutate/p", padded("u-large", 5 * 1024 * 1024));
    expect(reply.status).toBe(200);
    expect(responseOf(reply)).toEqual({
      uid: "u-large",
      allowed: false,
      status: {
        code: 413,
        message: expect.stringMatching(/^the admission request is 5\.0 MiB; .* at most 2\.0 MiB/),
      },
    });
    expect(appSaw).toEqual([]);
    expect(logged).toEqual([{ reason: "too large", uid: "u-large", bytes: expect.any(Number) }]);
  });

  it("admits a body just under the limit (Pepr's own limit was the same)", async () => {
    const reply = await post(port, "/mutate/p", padded("u-edge", 2 * 1024 * 1024 - 300));
    expect(responseOf(reply)).toEqual({ uid: "u-edge", allowed: true });
  });

  it("cuts off a sender past the drain limit after answering", async () => {
    const reply = await post(port, "/mutate/p", padded("u-huge", 20 * 1024 * 1024));
    expect(responseOf(reply).status.message).toMatch(
      /^the admission request is more than 16\.0 MiB/,
    );
    expect(reply.connection).toBe("close");
  });

  it("answers a review nested deeper than the limit with a denial", async () => {
    const reply = await post(port, "/mutate/p", deeplyNested("u-deep", 100_000));
    expect(responseOf(reply)).toEqual({
      uid: "u-deep",
      allowed: false,
      status: { code: 422, message: expect.stringMatching(/deeper than 64 levels/) },
    });
    expect(appSaw).toEqual([]);
  });

  it("answers a review holding a __proto__ key with a denial naming the field", async () => {
    const body = review("u-proto").replace(
      '"spec":{',
      '"spec":{"postgresql":{"parameters":{"__proto__":"1"}},',
    );
    const reply = await post(port, "/mutate/p", body);
    expect(responseOf(reply)).toEqual({
      uid: "u-proto",
      allowed: false,
      status: {
        code: 422,
        message: expect.stringMatching(
          /^spec\.postgresql\.parameters\.__proto__: "__proto__" is not/,
        ),
      },
    });
    expect(appSaw).toEqual([]);
  });

  it.each([
    ["not JSON", "{not json", {}, 400],
    ["a deep body without a uid", "[".repeat(100) + "]".repeat(100), {}, 422],
    ["a gzip body", gzipSync(review("u-gzip")), { "Content-Encoding": "gzip" }, 415],
  ])("refuses %s with a plain status", async (_, body, headers, status) => {
    const reply = await post(port, "/mutate/p", body, headers);
    expect(reply.status).toBe(status);
    expect(appSaw).toEqual([]);
  });

  it("lets other paths through untouched", async () => {
    const reply = await post(port, "/other", "{}");
    expect(reply.status).toBe(404); // Express's answer, not the guard's
  });

  it("answers 50 ordinary reviews while hostile ones arrive at the same time", async () => {
    const hostile = [
      post(port, "/mutate/p", padded("h-large", 8 * 1024 * 1024)),
      post(port, "/mutate/p", deeplyNested("h-deep", 500_000)),
      post(port, "/mutate/p", padded("h-huge", 32 * 1024 * 1024)),
    ];
    const ordinary = Array.from({ length: 50 }, (_, i) =>
      post(port, "/mutate/p", review(`o-${i}`)),
    );
    const replies = await Promise.all(ordinary);
    replies.forEach((reply, i) =>
      expect(responseOf(reply)).toEqual({ uid: `o-${i}`, allowed: true }),
    );
    for (const reply of await Promise.all(hostile)) expect(responseOf(reply).allowed).toBe(false);
    // What is checked is that every review is answered, not how fast: 40 MiB of hostile bodies
    // take seconds on a busy 2-core machine (jest's 5 s default failed once beside Go builds).
  }, 60_000);
});
