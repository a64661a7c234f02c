/**
 * The guard in front of Pepr's webhook server: it reads each admission request itself, with the
 * limits of ./limits.ts, and answers the ones over a limit with a denial before Pepr's parser or
 * its recursive request copy runs. What passes is handed on already parsed (Express's parser
 * skips a request whose body has been read), so no request is parsed twice.
 *
 * Why not Pepr's own parser: it answers an oversized body with a 413 (the apiserver reports
 * "failed calling webhook", a 5xx to the user), and a deeply nested one overflows the stack of the
 * request copy, answered 500. ADR 0015.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { AdmissionLimits } from "./limits";
import { shapeProblem } from "./json-shape";
import { denialReview, shapeMessage, tooLargeMessage, uidFromPrefix, uidOf } from "./review-denial";

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** What the guard reports of each request it answers itself (never the body). */
export type GuardLog = (fields: { reason: string; uid?: string; bytes: number }) => void;

const ADMISSION_PATH = /^\/(mutate|validate)\//;
/** Where the apiserver has written the request's uid in any body. */
const PREFIX_BYTES = 64 * 1024;

interface BodyRead {
  kept: Buffer[];
  bytes: number;
  /** The whole body was read (false: the sender passed maxDrainBytes and was cut off). */
  complete: boolean;
}

/** The body, keeping at most maxBodyBytes of it, and reading at most maxDrainBytes. */
function readBody(req: IncomingMessage, limits: AdmissionLimits): Promise<BodyRead | undefined> {
  return new Promise(resolve => {
    const kept: Buffer[] = [];
    let bytes = 0;
    const done = (read: BodyRead | undefined) => {
      req.removeAllListeners("data");
      resolve(read);
    };
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= limits.maxBodyBytes) kept.push(chunk);
      else if (bytes > limits.maxDrainBytes) {
        req.pause();
        done({ kept, bytes, complete: false });
      }
    });
    req.on("end", () => done({ kept, bytes, complete: true }));
    req.on("error", () => done(undefined)); // the sender went away: nobody to answer
  });
}

/**
 * A lingering close (as nginx does) for a sender still sending when we answer: Node closes such a
 * socket right after the answer, and closing with unread data sends a reset, on which the
 * sender's kernel drops our answer unread. Instead: FIN after the answer, then throw away what
 * still arrives until the sender finishes or `ms` pass.
 */
function lingerOnClose(req: IncomingMessage, ms: number): void {
  const socket: Socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.once("end", () => socket.destroy());
    socket.once("close", () => clearTimeout(timer));
    req.resume(); // no listener is left on it: what still arrives is thrown away
  };
}

function sendJson(res: ServerResponse, body: object, close: boolean): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
    ...(close ? { Connection: "close" } : {}),
  });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string, close = false): void {
  res.writeHead(status, {
    "Content-Type": "text/plain",
    ...(close ? { Connection: "close" } : {}),
  });
  res.end(text);
}

/** A denial when the request carries a uid to answer, else a plain error status. */
function refuse(
  res: ServerResponse,
  uid: string | undefined,
  code: number,
  message: string,
  close: boolean,
): void {
  if (uid === undefined) sendText(res, code, message, close);
  else sendJson(res, denialReview(uid, code, message), close);
}

/** `inner` (Pepr's Express app) behind the limits; other paths (/healthz, /metrics) go straight through. */
export function guardAdmission(
  inner: RequestListener,
  limits: AdmissionLimits,
  log: GuardLog,
): RequestListener {
  return (req, res) => {
    if (req.method !== "POST" || !ADMISSION_PATH.test(req.url ?? "")) return inner(req, res);
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") {
      log({ reason: "encoded body", bytes: 0 });
      return sendText(res, 415, `content-encoding ${encoding} is not accepted`, true);
    }
    void readBody(req, limits).then(read => {
      if (!read) return;
      if (read.bytes > limits.maxBodyBytes) {
        const prefix = Buffer.concat(read.kept).subarray(0, PREFIX_BYTES).toString("utf8");
        const uid = uidFromPrefix(prefix);
        log({ reason: "too large", uid, bytes: read.bytes });
        refuse(
          res,
          uid,
          413,
          tooLargeMessage(
            read.complete ? read.bytes : limits.maxDrainBytes,
            limits.maxBodyBytes,
            read.complete,
          ),
          !read.complete,
        );
        if (!read.complete) lingerOnClose(req, limits.lingerMs);
        return;
      }
      let review: unknown;
      try {
        review = JSON.parse(Buffer.concat(read.kept).toString("utf8"));
      } catch {
        log({ reason: "not JSON", bytes: read.bytes });
        return sendText(res, 400, "the admission request is not JSON");
      }
      const problem = shapeProblem(review, limits);
      if (problem) {
        const uid = uidOf(review);
        const reason =
          problem.kind === "key" ? `key ${problem.key}` : `${problem.kind} over ${problem.limit}`;
        log({ reason, uid, bytes: read.bytes });
        return refuse(res, uid, 422, shapeMessage(problem), false);
      }
      (req as IncomingMessage & { body?: unknown }).body = review;
      inner(req, res);
    });
  };
}
