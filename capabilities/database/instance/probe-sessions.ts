/**
 * The monitor's probes on long-lived sessions: one connection per instance, authenticated once
 * and reused by every probe, where a connection per probe cost a SCRAM handshake per instance per
 * second on both sides (and under CPU starvation, the handshake alone could outlast the probe's
 * timeout). ADR 0016.
 *
 * What a reused session cannot see, it checks on its own:
 * - a session that broke between probes (a restart, a terminated backend) is not a failure of
 *   the instance: the probe tries once more on a new connection, within the same deadline;
 * - a postmaster that stopped accepting connections still leaves established sessions working:
 *   every `acceptCheckMs` the probe also sends PostgreSQL's SSLRequest on a new TCP connection,
 *   which only a backend the postmaster has forked answers (no authentication, no catalog).
 * - a monitor the server refuses (a database cluster from before its role, ADR 0019) opens a
 *   session as the target's fallback, the superuser, and tries the monitor again after
 *   `monitorRetryMs`.
 * The deadline is today's: the probe's timeout covers reconnecting, the check and the queries.
 */
import { Socket, connect } from "node:net";
import { TLSSocket, connect as tlsConnect } from "node:tls";
import type { InstanceProbe, InstanceTarget } from "./types";
import { within } from "../lib/within";
import { probeQueries } from "./instance-sql";
import {
  InstanceSqlError,
  NO_ANSWER,
  addressOf,
  close,
  newClient,
  refusedIdentity,
  resetAnswerBudget,
  wrap,
} from "./sql-session";

type Client = ReturnType<typeof newClient>;

interface Session {
  client: Client;
  /** The target it was opened for: another identity, password or certificate opens a new one. */
  credentials: string;
  /** Whom it logged in as: the target, or its fallback. */
  as: InstanceTarget;
  onFallback: boolean;
  openedAt: number;
  /** Closed or failed: the next probe opens a new one. */
  broken: boolean;
  /** When the postmaster last proved it accepts connections (opening this session, or a check). */
  acceptedAt: number;
}

export interface ProbeSessionOptions {
  /** How often a probe on a reused session also checks that new connections are accepted. */
  acceptCheckMs: number;
  /** How long a session on the fallback identity is used before the target's is tried again. */
  monitorRetryMs?: number;
  now?: () => number;
}

const MONITOR_RETRY_MS = 60_000;

/** PostgreSQL's SSLRequest: length 8, code 1234/5679. The server answers one byte, S or N. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
const SSL_ACCEPTED = 0x53; // "S"

const APPLICATION_NAME = "pgkeeper-probe";

const credentialsOf = (t: InstanceTarget | undefined): string =>
  t === undefined
    ? ""
    : JSON.stringify([
        t.user,
        t.password,
        t.tls?.cert,
        t.tls?.ca,
        t.tls?.servername,
        credentialsOf(t.fallback),
      ]);

class Deadline {
  constructor(
    readonly at: number,
    private readonly now: () => number,
  ) {}
  get remaining(): number {
    return this.at - this.now();
  }
}

export class ProbeSessions {
  private readonly sessions = new Map<string, Session>();
  /**
   * When the server last refused the target's own identity, by address: for `monitorRetryMs`
   * new sessions go straight to the fallback, so a probe pays one login, not a refused one too.
   */
  private readonly refusedAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly opts: ProbeSessionOptions) {
    this.now = opts.now ?? Date.now;
  }

  async probeInstance(t: InstanceTarget, timeoutMs: number): Promise<InstanceProbe> {
    const key = addressOf(t);
    const deadline = new Deadline(this.now() + timeoutMs, this.now);
    const session = this.sessions.get(key);
    if (session && this.reusable(session, t)) {
      try {
        return await this.onSession(key, session, t, timeoutMs, deadline);
      } catch (err) {
        this.drop(key, session);
        // No answer in time is the instance's failure; a broken session may only be ours.
        if (isDeadline(err) || deadline.remaining <= 0) throw err;
      }
    } else if (session) this.drop(key, session);
    return this.onNewSession(key, t, timeoutMs, deadline);
  }

  private get retryMs(): number {
    return this.opts.monitorRetryMs ?? MONITOR_RETRY_MS;
  }

  private reusable(session: Session, t: InstanceTarget): boolean {
    return (
      !session.broken &&
      session.credentials === credentialsOf(t) &&
      !(session.onFallback && this.now() - session.openedAt >= this.retryMs)
    );
  }

  /** Closes the sessions of every instance not in `keep` (no longer tracked). */
  retainOnly(keep: Pick<InstanceTarget, "host" | "port">[]): void {
    const kept = new Set(keep.map(addressOf));
    for (const [key, session] of this.sessions) if (!kept.has(key)) this.drop(key, session);
    for (const key of this.refusedAt.keys()) if (!kept.has(key)) this.refusedAt.delete(key);
  }

  closeAll(): void {
    this.retainOnly([]);
  }

  /** How many sessions are open (for tests and the bench). */
  get size(): number {
    return this.sessions.size;
  }

  private async onSession(
    key: string,
    session: Session,
    t: InstanceTarget,
    timeoutMs: number,
    deadline: Deadline,
  ): Promise<InstanceProbe> {
    return withDeadline(session.as, timeoutMs, deadline, session.client, async () => {
      if (this.now() - session.acceptedAt >= this.opts.acceptCheckMs) {
        await acceptsConnections(t, deadline);
        session.acceptedAt = this.now();
      }
      resetAnswerBudget(session.client);
      return probeQueries(session.client, session.as);
    });
  }

  private async onNewSession(
    key: string,
    t: InstanceTarget,
    timeoutMs: number,
    deadline: Deadline,
  ): Promise<InstanceProbe> {
    const refused = this.refusedAt.get(key);
    const refusedLately = refused !== undefined && this.now() - refused < this.retryMs;
    if (!t.fallback || !refusedLately) {
      try {
        const probe = await this.open(key, t, t, timeoutMs, deadline);
        this.refusedAt.delete(key);
        return probe;
      } catch (err) {
        if (!t.fallback || !refusedIdentity(err) || deadline.remaining <= 0) throw err;
        this.refusedAt.set(key, this.now());
      }
    }
    return this.open(key, t, t.fallback, timeoutMs, deadline);
  }

  /** A new session for target `t`, logged in as `as` (t or its fallback), and its first probe. */
  private async open(
    key: string,
    t: InstanceTarget,
    as: InstanceTarget,
    timeoutMs: number,
    deadline: Deadline,
  ): Promise<InstanceProbe> {
    const client = newClient(as, timeoutMs, APPLICATION_NAME);
    const session: Session = {
      client,
      credentials: credentialsOf(t),
      as,
      onFallback: as !== t,
      openedAt: this.now(),
      broken: false,
      acceptedAt: this.now(),
    };
    const markBroken = () => (session.broken = true);
    client.on("error", markBroken);
    client.on("end", markBroken);
    try {
      const probe = await withDeadline(as, timeoutMs, deadline, client, async () => {
        await client.connect();
        return probeQueries(client, as);
      });
      this.sessions.set(key, session);
      return probe;
    } catch (err) {
      void close(client, false);
      throw err;
    }
  }

  private drop(key: string, session: Session): void {
    if (this.sessions.get(key) === session) this.sessions.delete(key);
    session.broken = true;
    void close(session.client, true);
  }
}

const isDeadline = (err: unknown): boolean =>
  err instanceof InstanceSqlError && / no answer within \d+ ms$/.test(err.message);

/**
 * `work` within what is left of the probe's deadline; past it, the client's socket is destroyed
 * (the session is useless once a statement is abandoned) and the probe fails as it always has:
 * "probe on host:port: no answer within <timeout> ms".
 */
async function withDeadline<T>(
  t: InstanceTarget,
  timeoutMs: number,
  deadline: Deadline,
  client: Client,
  work: () => Promise<T>,
): Promise<T> {
  try {
    // An answer that came in while the operator's event loop stalled still counts (lib/within.ts).
    return await within(work(), Math.max(0, deadline.remaining), () => {
      client.connection.stream.destroy();
      return new InstanceSqlError(
        `probe on ${addressOf(t)}: no answer within ${timeoutMs} ms`,
        NO_ANSWER,
      );
    });
  } catch (err) {
    throw wrap(err, "probe", t);
  }
}

/**
 * Whether the postmaster still accepts connections: an SSLRequest on a new TCP connection is
 * answered by the backend it forks, before any authentication. A frozen or overwhelmed
 * postmaster leaves it unanswered (the kernel still completes the TCP handshake).
 *
 * The backend that answered `S` waits for a TLS handshake: a client hanging up then makes it log
 * "could not accept SSL connection: EOF detected", one line per check, forever. So the handshake
 * is finished and the connection closed with TLS's close_notify: the backend then reads an empty
 * startup packet, which PostgreSQL leaves out of its log on purpose. Nothing is sent over it, so
 * the server's certificate is not what this checks (a probe session verifies it).
 */
function acceptsConnections(t: InstanceTarget, deadline: Deadline): Promise<void> {
  const socket: Socket = connect({ host: t.host, port: t.port });
  let secure: TLSSocket | undefined;
  const answered = new Promise<void>((resolve, reject) => {
    const fail = (why: string) => {
      secure?.destroy();
      socket.destroy();
      reject(new Error(`new connections are not accepted: ${why}`));
    };
    socket.once("connect", () => socket.write(SSL_REQUEST));
    socket.once("data", (answer: Buffer) => {
      socket.removeAllListeners("end");
      if (answer[0] !== SSL_ACCEPTED) {
        socket.end();
        return resolve();
      }
      secure = tlsConnect({ socket, rejectUnauthorized: false });
      secure.once("secureConnect", () => {
        secure?.end();
        resolve();
      });
      secure.once("error", err => fail(`TLS handshake: ${err.message}`));
    });
    socket.once("error", err => fail(err.message));
    socket.once("end", () => fail("closed without answering SSLRequest"));
  });
  return within(answered, Math.max(1, deadline.remaining), () => {
    secure?.destroy();
    socket.destroy();
    return Object.assign(new Error("new connections are not accepted: no answer to SSLRequest"), {
      code: NO_ANSWER,
    });
  });
}
