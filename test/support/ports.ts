/** Free loopback ports for the servers and processes a suite starts. */
import { createServer } from "node:net";

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free port whose `port + 10000` (a Redis cluster node's bus port) is free too. Random rather than
 * kernel-chosen, so the bus port stays below 65536 and two suites rarely race for one port.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (port === 6379 || port === 16379) continue;
    if ((await canBind(port)) && (await canBind(port + 10_000))) return port;
  }
  throw new Error("no free loopback port found");
}
