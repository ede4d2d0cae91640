/**
 * The process under test for bench/chat/run.ts, so its memory and event loop are its own.
 * `BENCH_SERVER=agent`: a chat agent (natural mode over the bench tool, its model at BENCH_LLM_URL,
 * or with BENCH_HOLD_S a typed handler that sends one chunk a second for that long).
 * `BENCH_SERVER=bare`: the named alternative, a bare node:http SSE endpoint sending the same chunks.
 * A message `latency` is answered instead with one delta that "arrives" BENCH_MODEL_MS after the
 * request (a timer standing for the model's first token): its text carries when it arrived, and every
 * write of it to a response is timed here, so the server's own cost from delta to first SSE byte is
 * measured on both sides alike.
 * Prints `{"url"}` once listening, then `{"rss", "heap", "lag_p99_ms"}` every 250 ms. On stdin, `gc`
 * answers `{"gc_heap"}` (heap used after forced collections: run with --expose-gc) and `latency`
 * answers `{"write_ms": [...]}` (delta arrival to its frame written, since the last ask); `snapshot <path>`
 * writes a heap snapshot there after forced collections and answers `{"snapshot": path}`.
 */
import { createServer, ServerResponse } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { writeHeapSnapshot } from "node:v8";
import { serveAgent } from "../../runtime/agent/index.js";
import type { ChatHandler } from "../../runtime/chat/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { BENCH_TOOL } from "../orchestration/spec.js";

const holdS = Number(process.env["BENCH_HOLD_S"] ?? 0);
const modelMs = Number(process.env["BENCH_MODEL_MS"] ?? 50);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A clock both processes read alike (sub-millisecond, unlike Date.now()). */
const wall = (): number => performance.timeOrigin + performance.now();

async function* held(): AsyncGenerator<string> {
  for (let i = 0; i < holdS; i++) {
    await sleep(1000);
    yield `piece ${i} `;
  }
}

/** The model's first delta, BENCH_MODEL_MS after the ask, stamped with when it arrived. */
async function* latency(): AsyncGenerator<string> {
  await sleep(modelMs);
  yield `t0=${wall().toFixed(3)} `;
}

// Delta arrival -> its frame handed to the socket, on whichever side wrote it.
const writeMs: number[] = [];
const write = ServerResponse.prototype.write;
ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
  if (typeof chunk === "string") {
    const stamp = /t0=([\d.]+)/.exec(chunk);
    if (stamp !== null) writeMs.push(wall() - Number(stamp[1]));
  }
  return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
} as typeof write;

const SPEC: ComponentSpec = {
  kind: "agent",
  name: "bench-chat-agent",
  description: "chats for the benchmark",
  version: "1.0.0",
  capabilities: [],
  agent: { uses: [BENCH_TOOL.name], orchestration: { natural: { model: "bench-model" }, custom: false, workflows: [], endpoints: [] }, tasks: [], chat: true },
};

let url: string;
if (process.env["BENCH_SERVER"] === "bare") {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (part: string) => {
      body += part;
    });
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(`event: session\ndata: {"session_id":"bare"}\n\n`);
      const pieces = body.includes('"latency"') ? latency() : held();
      for await (const text of pieces) res.write(`event: chunk\ndata: ${JSON.stringify({ text })}\n\n`);
      res.end(`event: done\ndata: {}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
} else {
  const chat: ChatHandler | undefined = holdS > 0 ? (input) => (input.message === "latency" ? latency() : held()) : undefined;
  const running = await serveAgent(SPEC, [BENCH_TOOL], {
    port: 0,
    registry: false,
    log: () => undefined,
    handlers: {},
    tasks: {},
    llm: { baseUrl: process.env["BENCH_LLM_URL"] ?? "http://127.0.0.1:9", apiKey: "bench", model: "bench-model" },
    orchestration: { baseUrls: { [BENCH_TOOL.name]: process.env["BENCH_TOOL_URL"] ?? "http://127.0.0.1:9" } },
    ...(chat === undefined ? {} : { chat }),
  });
  url = running.url;
}
process.stdout.write(`${JSON.stringify({ url })}\n`);
const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
setInterval(() => {
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ rss, heap: heapUsed, lag_p99_ms: lag.percentile(99) / 1e6 })}\n`);
  lag.reset();
}, 250);
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "gc") {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error("run with --expose-gc");
    // Twice: the first pass's finalisers free more on the second.
    gc();
    gc();
    process.stdout.write(`${JSON.stringify({ gc_heap: process.memoryUsage().heapUsed })}\n`);
  } else if (line.startsWith("snapshot ")) {
    // After forced collections, as for `gc`: what is held, by constructor (bench/chat/snapshot.ts).
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error("run with --expose-gc");
    gc();
    gc();
    process.stdout.write(`${JSON.stringify({ snapshot: writeHeapSnapshot(line.slice("snapshot ".length)) })}\n`);
  } else if (line === "latency") {
    process.stdout.write(`${JSON.stringify({ write_ms: writeMs.splice(0) })}\n`);
  }
});
