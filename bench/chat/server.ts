/**
 * The process under test for bench/chat/run.ts, so its memory and event loop are its own.
 * `BENCH_SERVER=agent`: a chat agent (natural mode over the bench tool, its model at BENCH_LLM_URL,
 * or with BENCH_HOLD_S a typed handler that sends one chunk a second for that long).
 * `BENCH_SERVER=bare`: the named alternative, a bare node:http SSE endpoint sending the same chunks.
 * Prints `{"url"}` once listening, then `{"rss", "heap", "lag_p99_ms"}` every 250 ms.
 */
import { createServer } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { serveAgent } from "../../runtime/agent/index.js";
import type { ChatHandler } from "../../runtime/chat/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { BENCH_TOOL } from "../orchestration/spec.js";

const holdS = Number(process.env["BENCH_HOLD_S"] ?? 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* held(): AsyncGenerator<string> {
  for (let i = 0; i < holdS; i++) {
    await sleep(1000);
    yield `piece ${i} `;
  }
}

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
    req.resume();
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(`event: session\ndata: {"session_id":"bare"}\n\n`);
      for await (const text of held()) res.write(`event: chunk\ndata: ${JSON.stringify({ text })}\n\n`);
      res.end(`event: done\ndata: {}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
} else {
  const chat: ChatHandler | undefined = holdS > 0 ? () => held() : undefined;
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
