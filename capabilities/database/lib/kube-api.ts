/**
 * The operator's own HTTP client for the apiserver: one kubeconfig load, one pool of keep-alive
 * connections for every request.
 *
 * Why not KFC for requests: kubernetes-fluent-client 3.11.6 reloads the kubeconfig from disk and
 * builds a new undici Agent (a new TLS context and connection, kept open for 10 minutes) for every
 * call. Under a burst of reconciles that meant hundreds of idle TLS connections and hundreds of
 * MiB of native memory, and a TLS handshake per request. Watches stay on KFC: they are few and
 * long-lived.
 *
 * Credentials: TLS material is read once; the Authorization header is refreshed every minute, so
 * a rotated service-account token (kubelet rewrites it well before expiry) is picked up.
 * Errors: `KubeApiError` carries the HTTP status and the Kubernetes Status body (what
 * `lib/errors` reads); request bodies and headers never enter an error, a log or an event.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { Agent, request } from "undici";

/** Status messages can list every invalid field: enough to say why, bounded for a condition. */
const MAX_STATUS_MESSAGE = 400;

/** " Forbidden: <the apiserver's message>" from a Kubernetes Status body, or "". */
function statusSummary(data: unknown): string {
  const { reason, message } = (typeof data === "object" && data !== null ? data : {}) as {
    reason?: unknown;
    message?: unknown;
  };
  const because = typeof reason === "string" && reason !== "" ? ` ${reason}` : "";
  if (typeof message !== "string" || message.trim() === "") return because;
  const text = message.trim();
  const shown = text.length <= MAX_STATUS_MESSAGE ? text : `${text.slice(0, MAX_STATUS_MESSAGE)}…`;
  return `${because}: ${shown}`;
}

/**
 * A failed API call: HTTP status and the apiserver's Status body (reason, message). Its message
 * carries the Status's reason and message too: a condition or log showing it says why.
 */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly data: unknown,
    method: string,
    path: string,
  ) {
    super(`${method} ${path}: HTTP ${status}${statusSummary(data)}`);
    this.name = "KubeApiError";
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Content type of `body`; JSON unless a patch type is given. */
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** What to ask for instead of the whole object, e.g. its metadata only (METADATA_ONLY). */
  accept?: string;
}

/** The object's metadata alone (PartialObjectMetadata): a Secret's data never leaves the apiserver. */
export const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

export type KubeRequest = <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;

/** How long an Authorization header is reused before the credentials are read again. */
const AUTH_REFRESH_MS = 60_000;
/** At most this many connections to the apiserver; requests beyond wait for a free one. */
const MAX_CONNECTIONS = 16;
/** A request that has not answered by then fails (watches do not come through here). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface Connection {
  server: URL;
  dispatcher: Agent;
  /**
   * Long-lived watch streams: each holds a connection for minutes, so they get their own pool,
   * uncapped, rather than taking the 16 that requests share (lib/kube-watch.ts).
   */
  streams: Agent;
  authorization(): Promise<string | undefined>;
}

interface HttpsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
  auth?: string;
  headers?: Record<string, string | string[] | number | undefined>;
}

async function credentials(kc: KubeConfig): Promise<HttpsOptions> {
  const opts: HttpsOptions = { headers: {} };
  await kc.applyToHTTPSOptions(opts as never);
  return opts;
}

function authorizationOf(opts: HttpsOptions): string | undefined {
  const header = opts.headers?.Authorization ?? opts.headers?.authorization;
  if (typeof header === "string") return header;
  return opts.auth ? `Basic ${Buffer.from(opts.auth).toString("base64")}` : undefined;
}

export interface ConnectOptions {
  /** A kubeconfig file; the usual places (KUBECONFIG, ~/.kube/config, in-cluster) otherwise. */
  kubeconfig?: string;
  authRefreshMs?: number;
}

/** Reads the kubeconfig and opens the pool (connections are made on first use). */
export async function connect(options: ConnectOptions = {}): Promise<Connection> {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  const refreshMs = options.authRefreshMs ?? AUTH_REFRESH_MS;
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("no current cluster in the kubeconfig");
  const first = await credentials(kc);
  const tls = {
    ca: first.ca,
    cert: first.cert,
    key: first.key,
    rejectUnauthorized: first.rejectUnauthorized,
    servername: first.servername,
  };
  const dispatcher = new Agent({
    connections: MAX_CONNECTIONS,
    keepAliveTimeout: 30_000,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    connect: tls,
  });
  // Each watch sets its own idle limit (bodyTimeout) per request.
  const streams = new Agent({
    keepAliveTimeout: 30_000,
    headersTimeout: REQUEST_TIMEOUT_MS,
    connect: tls,
  });
  let auth = { value: authorizationOf(first), at: Date.now() };
  return {
    server: new URL(cluster.server),
    dispatcher,
    streams,
    async authorization() {
      if (Date.now() - auth.at >= refreshMs)
        auth = { value: authorizationOf(await credentials(kc)), at: Date.now() };
      return auth.value;
    },
  };
}

export function urlOf(server: URL, path: string, query: RequestOptions["query"]): URL {
  const url = new URL(path, server);
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  return url;
}

export function parse(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A requester on `connection`: resolves with the parsed body, throws `KubeApiError` otherwise. */
export function requester(connection: () => Promise<Connection>): KubeRequest {
  return async <T>(method: string, path: string, options: RequestOptions = {}) => {
    const conn = await connection();
    const authorization = await conn.authorization();
    const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
    if (authorization) headers.authorization = authorization;
    if (options.body !== undefined)
      headers["content-type"] = options.contentType ?? "application/json";
    const response = await request(urlOf(conn.server, path, options.query), {
      method: method as "GET",
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      dispatcher: conn.dispatcher,
    });
    const body = parse(await response.body.text());
    if (response.statusCode >= 200 && response.statusCode < 300) return body as T;
    throw new KubeApiError(response.statusCode, body, method, path);
  };
}

let shared: Promise<Connection> | undefined;

/** The process-wide connection (kubeconfig from the usual places, in-cluster included). */
export const sharedConnection = (): Promise<Connection> => {
  shared ??= connect().catch(err => {
    shared = undefined; // a later call tries again
    throw err;
  });
  return shared;
};

/** The process-wide requester. */
export const kubeRequest: KubeRequest = requester(sharedConnection);
