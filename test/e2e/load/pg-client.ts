/**
 * A node-postgres connection for the write loads: client-side timeouts only (a server-side
 * statement_timeout would cancel a synchronous-replication wait and report the commit as done),
 * and a connection error that ends in the caller's catch, never as an unhandled event.
 */
import { Client, ClientConfig } from "pg";

export async function openClient(config: ClientConfig, timeoutMs: number): Promise<Client> {
  const client = new Client({
    ...config,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}
