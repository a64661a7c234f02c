import { AddressInfo, Server, Socket, connect, createServer } from "node:net";
import { within } from "./within";

const never = new Promise<never>(() => undefined);

/** Blocks the event loop, as a long synchronous pass or a starved machine does. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy: nothing else runs
  }
}

describe("within", () => {
  it("is the work's value when it comes in time", async () => {
    await expect(within(Promise.resolve(42), 1000, () => new Error("late"))).resolves.toBe(42);
  });

  it("is the work's error when it fails in time, and never calls expire", async () => {
    const expire = jest.fn(() => new Error("late"));
    await expect(within(Promise.reject(new Error("refused")), 1000, expire)).rejects.toThrow(
      "refused",
    );
    expect(expire).not.toHaveBeenCalled();
  });

  it("is expire's error, once, when the work never ends", async () => {
    const expire = jest.fn(() => new Error("no answer within 10 ms"));
    await expect(within(never, 10, expire)).rejects.toThrow("no answer within 10 ms");
    expect(expire).toHaveBeenCalledTimes(1);
  });

  describe("an answer that arrived while the event loop was stalled past the deadline", () => {
    let server: Server;
    let client: Socket;
    let serverSide: Socket;
    beforeAll(async () => {
      const accepted = new Promise<Socket>(resolve => {
        server = createServer(resolve);
      });
      await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      client = connect(port, "127.0.0.1");
      serverSide = await accepted;
      for (const s of [client, serverSide]) s.on("error", () => undefined);
    });
    afterAll(async () => {
      client.destroy();
      serverSide.destroy();
      await new Promise(resolve => server.close(resolve));
    });

    it("wins over the timeout that expired meanwhile", async () => {
      const expire = jest.fn(() => new Error("no answer within 20 ms"));
      const answer = new Promise<Buffer>(resolve => client.once("data", resolve));
      const verdict = within(answer, 20, expire);
      serverSide.write("pong"); // written to the kernel at once: in the client's buffer
      stall(200); // the timer expires, nothing runs
      await expect(verdict).resolves.toEqual(Buffer.from("pong"));
      expect(expire).not.toHaveBeenCalled();
    });
  });
});
