/**
 * A body trickled under the size limit cannot hold a socket: past `requestTimeoutMs` the server
 * answers 408 and closes the connection (it held one for 322 s before). A slow response is not cut.
 */
import { connect } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { tool, toolSpec } from "../support/specs.js";
import { within } from "../support/wait.js";

const SPEC = toolSpec(tool("slow-tool", { description: "answers slowly", capabilities: { wait: { description: "waits" } } }));

const running = await serveComponent(SPEC, {
  port: 0,
  registry: false,
  handleSignals: false,
  log: () => undefined,
  requestTimeoutMs: 1_000,
  handlers: { wait: async () => new Promise((resolve) => setTimeout(() => resolve({ waited: true }), 1_500)) },
});
test.after(() => running.close());

test("a body trickled one byte at a time is cut off with 408 once the request timeout passes", async () => {
  const { port } = new URL(running.url);
  const socket = connect(Number(port), "127.0.0.1");
  let answer = "";
  socket.on("data", (d) => (answer += d.toString()));
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now())));
  const started = Date.now();
  socket.write(`POST /api/capabilities/wait HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
  const drip = setInterval(() => {
    if (!socket.destroyed) socket.write(" ");
  }, 200);
  // Without the timeout the server would hold the socket for minutes: the 408 says the timeout is what closed it.
  const end = await within("the server to close the trickling socket", closed).finally(() => {
    clearInterval(drip);
    socket.destroy();
  });
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.ok(end - started >= 900, "not before the timeout");
});

test("a response slower than the request timeout is not cut", async () => {
  const response = await fetch(`${running.url}/api/capabilities/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal([response.status, await response.json()], [200, { waited: true }]);
});

test("a timeout under 100 ms is refused at start", async () => {
  try {
    await serveComponent(SPEC, { port: 0, registry: false, handleSignals: false, log: () => undefined, requestTimeoutMs: 5, handlers: { wait: () => ({}) } });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, RangeError);
  }
});

test.run();
