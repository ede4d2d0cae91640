/**
 * Chat over SSE, against named alternatives measured in the same run:
 *
 * 1. Latency over the model's own: a scripted OpenAI-compatible server answers every call after
 *    BENCH_MODEL_MS. `by hand` is the same work without Manifold: the planning call with the `openai`
 *    client, the tool call as a raw keep-alive POST, then the streamed synthesis call, timed to its
 *    first token. `chat` is POST /chat/stream on an agent process (natural mode over the same tool and
 *    model), timed to its first byte (the `session` event) and to its first `chunk` event. `AI SDK` is
 *    the same turn asked with the body useChat sends (`{id, messages}`), answered in the AI SDK's UI
 *    message stream: timed to its first `text-delta`; both streams' bytes per turn are counted.
 * 2. The server's own cost from the model's delta arriving to its first SSE frame written (timed in the
 *    serving process) and read (by this client), on a chat agent with a typed handler and on bare
 *    node:http forwarding the same delta, BENCH_LATENCY_ROUNDS rounds of 10 streams a side, alternating.
 * 3. BENCH_STREAMS (1000) concurrent streams held open for BENCH_HOLD_S (10 s), one chunk a second,
 *    on one chat agent process (spec SSE, then the AI SDK stream) and on a bare node:http SSE process,
 *    BENCH_HOLD_ROUNDS (3) rounds of the three in turn, medians: heap per stream after forced GC in
 *    the serving process (RSS as a secondary, noisy figure), the event-loop lag of the serving process
 *    while they are held, and whether every chunk arrived. 1000 streams, not 200: the heap's used bytes
 *    after GC move by some 50-250 KB between runs of the same server (free-list and page rounding; the
 *    live objects in a heap snapshot do not move), 1.2 KB per stream at 200, 0.05-0.25 at 1000 (bare
 *    6.04-7.13 KB at 200 in seven runs, 6.84 and 6.84 at 1000). BENCH_WARM_STREAMS (200) are served to their end first.
 *
 * BENCH_ONLY=hold runs part 3 alone. BENCH_BUILT=1 runs the serving processes from tsc's output instead of tsx (what users run; tsx adds
 * about a kilobyte per held stream).
 *
 *   npm run bench:chat     BENCH_RUNS=100 BENCH_MODEL_MS=50 BENCH_LATENCY_ROUNDS=20 BENCH_STREAMS=1000 BENCH_HOLD_S=10 BENCH_WARM_STREAMS=200 BENCH_HOLD_ROUNDS=3
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request, Agent } from "node:http";
import { createInterface } from "node:readline";
import { loadavg } from "node:os";
import OpenAI from "openai";
import { startScriptedLlm } from "../../test/support/scripted-llm.js";
import { rawPost, startBenchTool } from "../orchestration/harness.js";
import { BENCH_TOOL } from "../orchestration/spec.js";
import { serverArgs } from "./server-args.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 100);
const MODEL_MS = Number(process.env["BENCH_MODEL_MS"] ?? 50);
const STREAMS = Number(process.env["BENCH_STREAMS"] ?? 1000);
const HOLD_S = Number(process.env["BENCH_HOLD_S"] ?? 10);
const WARM_STREAMS = Number(process.env["BENCH_WARM_STREAMS"] ?? 200);

interface Stats {
  rss: number;
  heap: number;
  lag_p99_ms: number;
}

interface Server {
  url: string;
  child: ChildProcess;
  latest: () => Stats;
  /** Every stats line since the last call. */
  drain: () => Stats[];
  /** Heap used after forced collections, in bytes. */
  gcHeap: () => Promise<number>;
  /** Each delta's arrival to its frame written, in ms, since the last ask. */
  writeMs: () => Promise<number[]>;
}

/** BENCH_BUILT=1: every server process runs tsc's output, built once here (server-args.ts). */
const SERVER_ARGS = serverArgs();

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ["--expose-gc", ...SERVER_ARGS], {
    env: { ...process.env, NODE_ENV: "production", MANIFOLD_LOG_LEVEL: "error", BENCH_MODEL_MS: String(MODEL_MS), ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  // One exit listener for every server (a listener each passed node's limit of 10 and warned); a stopped one leaves the set.
  children.add(child);
  child.once("exit", () => children.delete(child));
  const lines = createInterface({ input: child.stdout! });
  let stats: Stats[] = [];
  let last: Stats = { rss: 0, heap: 0, lag_p99_ms: 0 };
  // One answer awaited at a time per kind (the bench asks, then waits).
  let onHeap: (bytes: number) => void = () => undefined;
  let onWrites: (ms: number[]) => void = () => undefined;
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
    lines.on("line", (line) => {
      const value = JSON.parse(line) as { url?: string; gc_heap?: number; write_ms?: number[] } & Stats;
      if (value.url !== undefined) resolve(value.url);
      else if (value.gc_heap !== undefined) onHeap(value.gc_heap);
      else if (value.write_ms !== undefined) onWrites(value.write_ms);
      else {
        last = value;
        stats.push(value);
      }
    });
  });
  return {
    url,
    child,
    latest: () => last,
    drain: () => {
      const out = stats;
      stats = [];
      return out;
    },
    gcHeap: () =>
      new Promise((resolve) => {
        onHeap = resolve;
        child.stdin!.write("gc\n");
      }),
    writeMs: () =>
      new Promise((resolve) => {
        onWrites = resolve;
        child.stdin!.write("latency\n");
      }),
  };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The clock server.ts stamps deltas with (both processes read it alike). */
const wall = (): number => performance.timeOrigin + performance.now();
const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ");

/** What starts a piece of the answer: the spec's `chunk` event, or the AI SDK stream's `text-delta` chunk. */
const SPEC_CHUNK = "event: chunk\n";
const AI_SDK_CHUNK = '"type":"text-delta"';

/** One SSE POST; resolves with when the first byte and the first piece of text arrived, how many pieces, and the bytes read. */
function stream(
  url: string,
  body: unknown,
  agent: Agent,
  marker = SPEC_CHUNK,
  onFirstChunk: () => void = () => undefined,
): Promise<{ firstByte: number; firstChunk: number; chunks: number; bytes: number; deltaMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      `${url}/chat/stream`,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } },
      (res) => {
        let firstByte = 0;
        let firstChunk = 0;
        let chunks = 0;
        let bytes = 0;
        // A `latency` turn's delta carries when it arrived at the server: its arrival to here.
        let deltaMs = Number.NaN;
        res.setEncoding("utf8");
        res.on("data", (part: string) => {
          const now = performance.now() - started;
          if (firstByte === 0) firstByte = now;
          bytes += Buffer.byteLength(part);
          const count = part.split(marker).length - 1;
          if (count > 0 && firstChunk === 0) {
            firstChunk = now;
            const stamp = /t0=([\d.]+)/.exec(part);
            if (stamp !== null) deltaMs = wall() - Number(stamp[1]);
            onFirstChunk();
          }
          chunks += count;
        });
        res.on("end", () => resolve({ firstByte, firstChunk, chunks, bytes, deltaMs }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

// useChat's body: a new chat each turn, as the spec's turns start a new session each.
const useChatBody = () => ({
  id: randomUUID(),
  messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "what is one?" }] }],
  trigger: "submit-message",
});
// BENCH_ONLY=hold: part 3 alone (held streams' heap), for runs alternated with another tree.
const ONLY_HOLD = process.env["BENCH_ONLY"] === "hold";
if (!ONLY_HOLD) {
  // 1. Latency over the model's own.
  const tool = await startBenchTool();
  const PLAN = JSON.stringify({
    steps: [{ step_id: "a", agent_name: BENCH_TOOL.name, depends_on: [], metadata: { capability: "echo", parameters: { n: 1 } } }],
  });
  const llm = await startScriptedLlm((body: { response_format?: unknown }) => ({
    text: body.response_format === undefined ? "The answer is one, as the tool said." : PLAN,
    delayMs: MODEL_MS,
    chunks: 4,
  }));
  // BENCH_HOLD_S is this run's setting for part 2; part 1's agent answers in natural mode.
  const agent = await startServer({ BENCH_SERVER: "agent", BENCH_LLM_URL: llm.baseUrl, BENCH_TOOL_URL: tool.url, BENCH_HOLD_S: "0" });
  const openai = new OpenAI({ apiKey: "bench", baseURL: llm.baseUrl, maxRetries: 0 });
  const post = rawPost(new URL(tool.url + BENCH_TOOL.capabilities[0]!.endpoint), 16);
  const keepAlive = new Agent({ keepAlive: true, maxSockets: 16 });

  const byHand = async (): Promise<number> => {
    const started = performance.now();
    const plan = await openai.chat.completions.create({
      model: "bench-model",
      messages: [{ role: "user", content: "plan" }],
      response_format: { type: "json_object" },
    });
    JSON.parse(plan.choices[0]!.message.content ?? "");
    const { n } = await post({ n: 1 });
    const synthesis = await openai.chat.completions.create({ model: "bench-model", messages: [{ role: "user", content: `result ${n}` }], stream: true });
    let first = 0;
    for await (const chunk of synthesis) if (first === 0 && (chunk.choices[0]?.delta?.content ?? "") !== "") first = performance.now() - started;
    return first;
  };
  const modelOnly = async (): Promise<number> => {
    const started = performance.now();
    const synthesis = await openai.chat.completions.create({ model: "bench-model", messages: [{ role: "user", content: "hi" }], stream: true });
    let first = 0;
    for await (const chunk of synthesis) if (first === 0 && (chunk.choices[0]?.delta?.content ?? "") !== "") first = performance.now() - started;
    return first;
  };

  const model: number[] = [];
  const hand: number[] = [];
  const ttfb: number[] = [];
  const firstChunk: number[] = [];
  const specBytes: number[] = [];
  const aiFirstByte: number[] = [];
  const aiFirstDelta: number[] = [];
  const aiBytes: number[] = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const m = await modelOnly();
    const h = await byHand();
    const c = await stream(agent.url, { message: "what is one?" }, keepAlive);
    if (c.chunks === 0) throw new Error("the chat stream sent no chunk");
    const a = await stream(agent.url, useChatBody(), keepAlive, AI_SDK_CHUNK);
    if (a.chunks === 0) throw new Error("the AI SDK stream sent no text-delta");
    if (i < 10) continue;
    model.push(m);
    hand.push(h);
    ttfb.push(c.firstByte);
    firstChunk.push(c.firstChunk);
    specBytes.push(c.bytes);
    aiFirstByte.push(a.firstByte);
    aiFirstDelta.push(a.firstChunk);
    aiBytes.push(a.bytes);
  }
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `chat latency, ${RUNS} runs, model answers after ${MODEL_MS} ms (medians); load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}:`,
  );
  console.log(`  the model alone, first token of one streamed call       ${ms(median(model))}`);
  console.log(`  by hand: plan call + tool POST + streamed synthesis     ${ms(median(hand))}  (first token)`);
  console.log(`  chat: POST /chat/stream, first byte (session event)     ${ms(median(ttfb))}`);
  console.log(`  chat: POST /chat/stream, first chunk event              ${ms(median(firstChunk))}`);
  console.log(
    `  chat first chunk / by hand: ${(median(firstChunk) / median(hand)).toFixed(2)}x; over the model's own latency (2 calls): ${ms(median(firstChunk) - 2 * median(model))}`,
  );
  console.log(`  AI SDK stream: useChat body, first byte (start chunk)   ${ms(median(aiFirstByte))}`);
  console.log(`  AI SDK stream: useChat body, first text-delta           ${ms(median(aiFirstDelta))}`);
  console.log(
    `  AI SDK / spec SSE: first text ${(median(aiFirstDelta) / median(firstChunk)).toFixed(2)}x (over the model's own: ${ms(median(aiFirstDelta) - 2 * median(model))} vs ${ms(median(firstChunk) - 2 * median(model))}); bytes per turn ${median(aiBytes)} vs ${median(specBytes)} (${(median(aiBytes) / median(specBytes)).toFixed(2)}x)`,
  );
  agent.child.kill("SIGKILL");
  tool.child.kill("SIGKILL");
  await llm.close();
  post.close();
  keepAlive.destroy();
}

if (!ONLY_HOLD) {
  // 2. The server's own cost from the model's delta to the first SSE byte, on a chat agent (typed handler,
  // so the path measured is the route's, not the planner's) and on bare node:http forwarding the same delta.
  const LATENCY_ROUNDS = Number(process.env["BENCH_LATENCY_ROUNDS"] ?? 20);
  const PER_ROUND = 10;
  {
    const sides = [
      { name: "chat", server: await startServer({ BENCH_SERVER: "agent", BENCH_HOLD_S: "1" }), server_ms: [] as number[], client_ms: [] as number[] },
      { name: "bare", server: await startServer({ BENCH_SERVER: "bare", BENCH_HOLD_S: "1" }), server_ms: [] as number[], client_ms: [] as number[] },
    ];
    const pool = new Agent({ keepAlive: true, maxSockets: 4 });
    for (let round = 0; round < LATENCY_ROUNDS + 2; round++) {
      // Alternating which side goes first; the first two rounds warm both and are not counted.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        for (let i = 0; i < PER_ROUND; i++) {
          const r = await stream(side.server.url, { message: "latency" }, pool);
          if (round >= 2) side.client_ms.push(r.deltaMs);
        }
        const written = await side.server.writeMs();
        if (round >= 2) side.server_ms.push(...written);
      }
    }
    pool.destroy();
    for (const side of sides) side.server.child.kill("SIGKILL");
    const [chat, bare] = sides as [(typeof sides)[0], (typeof sides)[0]];
    const us = (v: number) => `${(v * 1000).toFixed(0)} µs`;
    console.log(`\nmodel delta -> first SSE chunk, ${chat.server_ms.length} streams a side, alternating (medians); load ${load()}:`);
    for (const side of sides)
      console.log(
        `  ${side.name.padEnd(5)} server: delta arrived -> frame written ${us(median(side.server_ms)).padStart(8)}   client: delta arrived -> chunk read ${us(median(side.client_ms)).padStart(8)}`,
      );
    console.log(
      `  chat over bare: server ${us(median(chat.server_ms) - median(bare.server_ms))}, client ${us(median(chat.client_ms) - median(bare.client_ms))} (aim: first chunk <= 3 ms over the model's own latency)`,
    );
  }
}

// 3. Many streams held open.
async function hold(
  name: string,
  env: Record<string, string>,
  asked: { body: () => unknown; marker: string } = { body: () => ({ message: "hold" }), marker: SPEC_CHUNK },
): Promise<{ perStreamKb: number; heapKb: number; complete: number }> {
  const server = await startServer({ ...env, BENCH_HOLD_S: String(HOLD_S) });
  const pool = new Agent({ keepAlive: false, maxSockets: STREAMS + 10 });
  // A first batch served to its end before the idle sample, on every side alike: code compiled and
  // heap grown on first use is the process's once, not each stream's (it was a third of the chat
  // agent's figure). BENCH_WARM_STREAMS=0 measures from cold, as before.
  if (WARM_STREAMS > 0) await Promise.all(Array.from({ length: WARM_STREAMS }, () => stream(server.url, asked.body(), pool, asked.marker)));
  await sleep(1500);
  server.drain();
  const idle = server.latest();
  const heapBefore = await server.gcHeap();
  let first = 0;
  let allFirst: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    allFirst = resolve;
  });
  const onFirst = (): void => {
    if (++first === STREAMS) allFirst();
  };
  const all = Array.from({ length: STREAMS }, () => stream(server.url, asked.body(), pool, asked.marker, onFirst));
  // Every stream open and past its first chunk: what each holds from here on, after forced collections.
  await opened;
  const heapKb = ((await server.gcHeap()) - heapBefore) / STREAMS / 1024;
  const opening = server.drain();
  await sleep(Math.max(1000, HOLD_S * 1000 - 3000));
  const held = server.drain();
  const results = await Promise.all(all);
  const peak = Math.max(...held.map((s) => s.rss));
  const lag = (stats: Stats[]) =>
    Math.max(...stats.map((s) => s.lag_p99_ms))
      .toFixed(1)
      .padStart(5);
  const complete = results.filter((r) => r.chunks === HOLD_S).length;
  server.child.kill("SIGKILL");
  pool.destroy();
  const perStreamKb = (peak - idle.rss) / STREAMS / 1024;
  console.log(
    `  ${name.padEnd(27)} heap ${heapKb.toFixed(1).padStart(5)} KB per stream (RSS ${perStreamKb.toFixed(1).padStart(5)} KB)   lag p99 ${lag(opening)} ms opening, ${lag(held)} ms held   ${complete}/${STREAMS} got all ${HOLD_S} chunks`,
  );
  return { perStreamKb, heapKb, complete };
}

console.log(
  `\n${STREAMS} concurrent streams held ${HOLD_S} s, one chunk a second (serving process only, after ${WARM_STREAMS} streams served to warm it; heap after forced GC once all are open); load ${load()}:`,
);
// BENCH_HOLD_ROUNDS rounds of the three sides in turn, each a fresh process: the figures are their
// medians. One process's figure moves with the JIT: Node's promise hooks (on once a request scope is
// used) store each promise's async ids boxed or not depending on what was optimised first, a few
// hundred bytes per chat stream between runs of the same code; bare node:http has no hooks.
const HOLD_ROUNDS = Number(process.env["BENCH_HOLD_ROUNDS"] ?? 3);
const sides = {
  chat: [] as Awaited<ReturnType<typeof hold>>[],
  aiSdk: [] as Awaited<ReturnType<typeof hold>>[],
  bare: [] as Awaited<ReturnType<typeof hold>>[],
};
for (let round = 0; round < HOLD_ROUNDS; round++) {
  sides.chat.push(await hold("chat agent (/chat/stream)", { BENCH_SERVER: "agent" }));
  sides.aiSdk.push(await hold("chat agent, AI SDK stream", { BENCH_SERVER: "agent" }, { body: useChatBody, marker: AI_SDK_CHUNK }));
  sides.bare.push(await hold("bare node:http SSE", { BENCH_SERVER: "bare" }));
}
const summary = (runs: Awaited<ReturnType<typeof hold>>[]) => ({
  heapKb: median(runs.map((r) => r.heapKb)),
  perStreamKb: median(runs.map((r) => r.perStreamKb)),
  complete: Math.min(...runs.map((r) => r.complete)),
  range: `${Math.min(...runs.map((r) => r.heapKb)).toFixed(2)}-${Math.max(...runs.map((r) => r.heapKb)).toFixed(2)}`,
});
const [chat, aiSdk, bare] = [summary(sides.chat), summary(sides.aiSdk), summary(sides.bare)];
console.log(
  `  medians of ${HOLD_ROUNDS}: heap per stream chat ${chat.heapKb.toFixed(2)} KB (${chat.range}), AI SDK ${aiSdk.heapKb.toFixed(2)} KB (${aiSdk.range}), bare ${bare.heapKb.toFixed(2)} KB (${bare.range})`,
);
console.log(
  `  heap per stream, chat / bare: ${(chat.heapKb / Math.max(bare.heapKb, 0.1)).toFixed(2)}x (aim <= 1.3x); AI SDK stream / spec SSE: ${(aiSdk.heapKb / Math.max(chat.heapKb, 0.1)).toFixed(2)}x`,
);
console.log(
  `  RSS per stream (secondary, noisy on a shared box), chat / bare: ${(chat.perStreamKb / Math.max(bare.perStreamKb, 0.1)).toFixed(2)}x; load ${load()}`,
);
process.exit(chat.complete === STREAMS && aiSdk.complete === STREAMS && bare.complete === STREAMS ? 0 : 1);
