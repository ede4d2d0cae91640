/**
 * What natural mode adds on top of the model's own latency: a whole `runNatural` (catalog, planning
 * prompt, plan parse and check, a 3-step chain on the executor, trimming, synthesis prompt) against
 * the same work done by hand in the same run: the two model calls made directly with the `openai`
 * client, then the three tool calls as raw node:http keep-alive POSTs. Both talk to the same scripted
 * OpenAI-compatible server (instant answers) and the same tool process, interleaved run by run.
 *
 *   npx tsx --conditions=source bench/orchestration/natural.ts     BENCH_RUNS=1000 BENCH_WARMUP=100
 */
import OpenAI from "openai";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { createOrchestrator } from "../../runtime/orchestration/index.js";
import { startScriptedLlm } from "../../test/support/scripted-llm.js";
import { rawPost, startBenchTool } from "./harness.js";
import { BENCH_TOOL } from "./spec.js";

const RUNS = Number(process.env["BENCH_RUNS"] ?? 1_000);
const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 100);

const { url, child } = await startBenchTool();

const PLAN = JSON.stringify({
  steps: [
    { step_id: "a", agent_name: BENCH_TOOL.name, depends_on: [], metadata: { capability: "echo", parameters: { n: 1 } } },
    { step_id: "b", agent_name: BENCH_TOOL.name, depends_on: ["a"], metadata: { capability: "echo", parameters: { n: "{{a.response.data.n}}" } } },
    { step_id: "c", agent_name: BENCH_TOOL.name, depends_on: ["b"], metadata: { capability: "echo", parameters: { n: "{{b.response.data.n}}" } } },
  ],
});
// Planning requests carry response_format; synthesis requests do not.
const llm = await startScriptedLlm((body: { response_format?: unknown }) => ({ text: body.response_format === undefined ? "The answer is 1." : PLAN }));
const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: "bench", model: "bench-model" }, env: {} })!);
const orchestrator = createOrchestrator({ components: [BENCH_TOOL], baseUrls: { [BENCH_TOOL.name]: url }, registry: false, llm: provider, env: {} });

const openai = new OpenAI({ apiKey: "bench", baseURL: llm.baseUrl });
const post = rawPost(new URL(url + BENCH_TOOL.capabilities[0]!.endpoint), 16);

const byHand = async (): Promise<void> => {
  const plan = await openai.chat.completions.create({
    model: "bench-model",
    messages: [{ role: "user", content: "plan" }],
    response_format: { type: "json_object" },
  });
  JSON.parse(plan.choices[0]!.message.content ?? "");
  let n = 1;
  for (let i = 0; i < 3; i += 1) n = (await post({ n })).n;
  await openai.chat.completions.create({ model: "bench-model", messages: [{ role: "user", content: `results ${n}` }] });
};
const natural = async (): Promise<void> => {
  const result = await orchestrator.runNatural("what is one?", { synthesise: true });
  if (result.status !== "completed" || result.synthesis !== "The answer is 1.") throw new Error(JSON.stringify(result));
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

for (let i = 0; i < WARMUP; i += 1) {
  await byHand();
  await natural();
}
const hand: number[] = [];
const full: number[] = [];
for (let i = 0; i < RUNS; i += 1) {
  let started = performance.now();
  await byHand();
  hand.push(performance.now() - started);
  started = performance.now();
  await natural();
  full.push(performance.now() - started);
}
const h = median(hand);
const f = median(full);
console.log(`node ${process.version}; 2 model calls (instant scripted endpoint) + 3 chained tool calls; median of ${RUNS} runs\n`);
console.log(`${"by hand (openai client + raw POSTs)".padEnd(40)}${h.toFixed(3).padStart(9)} ms`);
console.log(`${"runNatural".padEnd(40)}${f.toFixed(3).padStart(9)} ms`);
console.log(`\noverhead of natural mode: ${(f - h).toFixed(3)} ms per request; ratio ${(f / h).toFixed(2)}`);
post.close();
await llm.close();
await orchestrator.close();
child.kill("SIGTERM");
