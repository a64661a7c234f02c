/**
 * One watch request to the apiserver, as a stream of its events: parsed line by line until the
 * server ends it (the `timeoutSeconds` asked for), the caller aborts, or it stays silent longer
 * than `idleMs` (a connection dropped without a word). On lib/kube-api's connection, in its pool
 * of stream connections.
 */
import { StringDecoder } from "node:string_decoder";
import { request } from "undici";
import { Connection, KubeApiError, parse, sharedConnection, urlOf } from "./kube-api";

/** A watch event as the apiserver sends it: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. */
export interface RawWatchEvent {
  type: string;
  object: unknown;
}

/** etcd keeps objects under ~1.5 MiB: a line longer than this is no event of ours. */
export const MAX_EVENT_BYTES = 8 * 1024 * 1024;

export interface WatchOptions {
  signal: AbortSignal;
  /** Silence longer than this ends the stream with an error. */
  idleMs: number;
}

export type WatchStream = (
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  options: WatchOptions,
) => AsyncIterable<RawWatchEvent>;

/**
 * The complete lines of a stream of text chunks, blank ones skipped. A chunk with no newline (a
 * large object arrives in many) is only kept: the line is joined once, when its end arrives, so
 * a 60 KiB ConfigMap in 16 KiB chunks is not copied and scanned again at every chunk.
 */
export class LineSplitter {
  private parts: string[] = [];
  private length = 0;

  /** The lines `text` completes. */
  push(text: string): string[] {
    const end = text.indexOf("\n");
    if (end < 0) {
      if (text !== "") this.parts.push(text);
      this.length += text.length;
      return [];
    }
    const first = this.parts.join("") + text.slice(0, end);
    const more = text.slice(end + 1).split("\n");
    const rest = more.pop() ?? "";
    this.parts = rest === "" ? [] : [rest];
    this.length = rest.length;
    return [first, ...more].filter(line => line.trim() !== "");
  }

  /** How long the unfinished line is so far. */
  get pending(): number {
    return this.length;
  }
}

export function watchStreamer(connection: () => Promise<Connection>): WatchStream {
  return async function* watch(path, query, { signal, idleMs }) {
    const conn = await connection();
    const authorization = await conn.authorization();
    const headers: Record<string, string> = { accept: "application/json" };
    if (authorization) headers.authorization = authorization;
    const response = await request(urlOf(conn.server, path, { ...query, watch: true }), {
      method: "GET",
      headers,
      dispatcher: conn.streams,
      bodyTimeout: idleMs,
      signal,
    });
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new KubeApiError(response.statusCode, parse(await response.body.text()), "WATCH", path);
    const decoder = new StringDecoder("utf8");
    const splitter = new LineSplitter();
    try {
      for await (const chunk of response.body) {
        const lines = splitter.push(decoder.write(chunk as Buffer));
        if (splitter.pending > MAX_EVENT_BYTES)
          throw new Error(`watch ${path}: an event longer than ${MAX_EVENT_BYTES} bytes`);
        for (const line of lines) yield JSON.parse(line) as RawWatchEvent;
      }
    } finally {
      // The consumer may stop early (a relist, a stop): release the connection.
      response.body.destroy();
    }
  };
}

/** Watches on the process-wide connection. */
export const kubeWatch: WatchStream = watchStreamer(sharedConnection);
