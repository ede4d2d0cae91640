/**
 * SSE heartbeats on real loopback HTTP (runtime/component/sse.ts): streams opened with the same
 * interval share one timer, so a stream that hangs up must not stop the others' comments, and a
 * closed stream gets no more of them. Waits on what arrives, never on elapsed time.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openSseStream, type SseStream } from "../../runtime/component/index.js";

const streams = new Map<string, { stream: SseStream; res: ServerResponse }>();
const server = createServer((req, res) => {
  const name = req.url!.slice(1);
  streams.set(name, { stream: openSseStream(res, { heartbeatMs: 20 }), res });
});

/** A client of one stream: the text read so far, and a wait for the n-th keep-alive comment. */
function client(port: number, name: string) {
  let text = "";
  const waiting: { n: number; resolve: () => void }[] = [];
  const comments = (): number => text.split(": keep-alive\n\n").length - 1;
  let response: IncomingMessage | undefined;
  const req = request({ port, path: `/${name}` }, (res) => {
    response = res;
    res.setEncoding("utf8");
    res.on("data", (part: string) => {
      text += part;
      for (const w of waiting.splice(0))
        if (comments() >= w.n) w.resolve();
        else waiting.push(w);
    });
  });
  req.end();
  return {
    comments,
    text: () => text,
    ended: () => new Promise<void>((resolve) => (response!.complete ? resolve() : response!.once("end", resolve))),
    until: (n: number) => new Promise<void>((resolve) => (comments() >= n ? resolve() : waiting.push({ n, resolve }))),
    hangUp: () => req.destroy(),
  };
}

test("a stream that hangs up leaves the others' heartbeats running; a closed stream gets none after its end", async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const a = client(port, "a");
  const b = client(port, "b");
  const c = client(port, "c");
  await Promise.all([a.until(1), b.until(1), c.until(1)]);

  const closed = new Promise<void>((resolve) => streams.get("a")!.res.once("close", resolve));
  a.hangUp();
  await closed;
  assert.is(streams.get("a")!.stream.open, false);
  // b and c still get comments after a left the shared timer.
  const [bSeen, cSeen] = [b.comments(), c.comments()];
  await Promise.all([b.until(bSeen + 2), c.until(cSeen + 2)]);

  streams.get("b")!.stream.send("done", { ok: true });
  streams.get("b")!.stream.close();
  await b.ended();
  assert.is(streams.get("b")!.stream.open, false);
  assert.ok(b.text().endsWith('event: done\ndata: {"ok":true}\n\n'), "nothing after the closing frame");
  // c keeps beating alone.
  await c.until(c.comments() + 2);
  streams.get("c")!.stream.close();
  await c.ended();
  server.close();
});

test.run();
