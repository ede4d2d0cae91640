/**
 * The keep-alive transport every caller uses by default, on real sockets: keep-alive reuse, a
 * reused socket reset by the server before it answered (sent again on a fresh one), and the error
 * mapping the caller relies on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createCaller, fetchTransport, keepAliveTransport } from "../../runtime/outbound/index.js";
import { rejection } from "./support.js";

type Handler = (req: IncomingMessage, res: ServerResponse, seenOnSocket: number) => void;

async function server(handler: Handler): Promise<{ url: string; sockets: Set<Socket>; close: () => Promise<void> }> {
  const perSocket = new WeakMap<Socket, number>();
  const sockets = new Set<Socket>();
  const http = createServer((req, res) => {
    const seen = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, seen);
    req.resume();
    req.on("end", () => handler(req, res, seen));
  });
  http.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

const test = suite("keep-alive transport");
const caller = createCaller({ env: {}, transport: keepAliveTransport });

test("30 calls in flight on one AbortSignal (a wide fan-out): no MaxListenersExceededWarning, and one abort ends them all", async () => {
  const s = await server(() => undefined); // never answers
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const controller = new AbortController();
    const calls = Array.from({ length: 30 }, (_, i) =>
      caller.call({ url: `${s.url}/x`, body: { i }, name: "x", signal: controller.signal }).then(
        () => "answered",
        (e: { code: string }) => e.code,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    assert.equal(new Set(await Promise.all(calls)), new Set(["ABORTED"]));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(
      warnings.map((w) => w.name),
      [],
    );
  } finally {
    process.off("warning", onWarning);
    await s.close();
  }
});

test("calls in a row reuse kept-alive connections instead of opening one each", async () => {
  const s = await server((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
  try {
    for (let i = 0; i < 20; i += 1) assert.equal(await caller.call({ url: `${s.url}/x`, body: { i }, name: "x" }), { ok: true });
    // undici hands a connection back to its pool a tick after the answer is read, so the call right
    // after the first may open a second one; from then on the two are reused.
    assert.ok(s.sockets.size <= 2, `${s.sockets.size} connections for 20 calls`);
  } finally {
    await s.close();
  }
});

test("a reused socket the server resets before answering is retried once on a fresh socket", async () => {
  let answered = 0;
  let dropped = 0;
  const s = await server((req, res, seen) => {
    // The second request on a connection is dropped unanswered: what a server closing an idle
    // keep-alive connection at the moment it is reused looks like to the client.
    if (seen === 2) {
      dropped += 1;
      return void req.socket.destroy();
    }
    answered += 1;
    res.writeHead(200, { "content-type": "application/json" }).end(`{"n":${answered}}`);
  });
  try {
    for (let n = 1; n <= 6; n += 1) assert.equal(await caller.call({ url: `${s.url}/x`, body: {}, name: "x" }), { n }, "every call answered once, in order");
    // Every drop was a reused connection's, and each of those calls was still answered: sent again.
    assert.ok(dropped >= 2, `reused connections were dropped ${dropped} times`);
  } finally {
    await s.close();
  }
});

test("a reset on a fresh socket is a NETWORK_ERROR, not retried", async () => {
  let requests = 0;
  const s = await server((req) => {
    requests += 1;
    req.socket.destroy();
  });
  try {
    const error = await rejection(caller.call({ url: `${s.url}/x`, body: {}, name: "reset" }));
    assert.is(error.code, "NETWORK_ERROR");
    assert.is(requests, 1);
  } finally {
    await s.close();
  }
});

test("timeouts, aborts, envelopes and non-JSON answers map like fetch's", async () => {
  const s = await server((req, res) => {
    if (req.url === "/slow") return void setTimeout(() => res.writeHead(200).end("{}"), 2_000).unref();
    if (req.url === "/envelope")
      return void res
        .writeHead(409, { "content-type": "application/json" })
        .end(JSON.stringify({ success: false, error: { code: "CONFLICT", message: "taken" } }));
    res.writeHead(200, { "content-type": "text/html" }).end("<html>");
  });
  try {
    assert.is((await rejection(caller.call({ url: `${s.url}/slow`, body: {}, name: "slow", timeoutMs: 50 }))).code, "TIMEOUT");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    assert.is((await rejection(caller.call({ url: `${s.url}/slow`, body: {}, name: "slow", signal: controller.signal }))).code, "ABORTED");
    const conflict = await rejection(caller.call({ url: `${s.url}/envelope`, body: {}, name: "c" }));
    assert.is(conflict.code, "CONFLICT");
    assert.is(conflict.message, "taken");
    assert.is((await rejection(caller.call({ url: `${s.url}/html`, body: {}, name: "h" }))).code, "INVALID_RESPONSE");
  } finally {
    await s.close();
  }
  const refused = await rejection(caller.call({ url: s.url + "/x", body: {}, name: "gone" }));
  assert.is(refused.code, "NETWORK_ERROR");
  assert.match(refused.message, /ECONNREFUSED/);
});

test("an Abortable (a task run's abort) ends a call in flight as ABORTED, on both transports", async () => {
  const s = await server(() => undefined); // never answers
  try {
    for (const transport of [keepAliveTransport, fetchTransport]) {
      const listeners = new Set<() => void>();
      const abortable = {
        aborted: false,
        reason: undefined as unknown,
        onAbort(listener: () => void) {
          listeners.add(listener);
          return () => void listeners.delete(listener);
        },
      };
      const call = createCaller({ env: {}, transport }).call({ url: `${s.url}/x`, body: {}, name: "x", signal: abortable });
      await new Promise((resolve) => setTimeout(resolve, 50));
      abortable.aborted = true;
      abortable.reason = new Error("lease lost");
      for (const listener of [...listeners]) listener();
      assert.is((await rejection(call)).code, "ABORTED");
      assert.is(listeners.size, 0, "the call unsubscribed once it ended");
    }
  } finally {
    await s.close();
  }
});

test("an answer written in pieces, after a 103 Early Hints, is read whole", async () => {
  const s = await server((_req, res) => {
    res.writeEarlyHints({ link: "</a.css>; rel=preload" });
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"parts":');
    setTimeout(() => res.end(`[${"1,".repeat(20_000)}1]}`), 20);
  });
  try {
    const answer = (await caller.call({ url: `${s.url}/x`, body: {}, name: "x" })) as { parts: number[] };
    assert.is(answer.parts.length, 20_001);
  } finally {
    await s.close();
  }
});

test.run();
