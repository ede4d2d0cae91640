/**
 * Result distillation (issue 28 item 3), end to end: the real `openai` client against the scripted
 * OpenAI-compatible server, a real tool answering with 2 MB / 10,000 rows on loopback, and the span
 * events at a local OTLP receiver. A result over the result budget is summarised by map-reduce
 * (every chunk read, content_lost false) while a later step's template still gets all of it; a
 * failed distillation falls back to the structural trim (content_lost true); a second identical
 * request is answered from the distillate cache with no distillation call; the synthesis of 10,000
 * rows and a continuation prompt are built from the distillate, every prompt within the budget.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { AdaptiveSettings } from "../../runtime/orchestration/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { exportToReceiver, startOtlpReceiver, naturalRequestEvents } from "../telemetry/otlp-receiver.js";
import { kindOf, partOf, promptSize, startDataset, type Dataset, bodiesOf, named, userPrompt } from "./distill-support.js";
import { agentSpec, planStep, serveAgent, startTools, type Tools } from "./support.js";

type Agent = Awaited<ReturnType<typeof serveAgent>>;

interface Context {
  receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  tools: Tools;
  dataset: Dataset;
  llm: ScriptedLlm;
  /** How the scripted model answers, by request. */
  script: (body: any) => ScriptedEntry;
  agents: Agent[];
  serve(adaptive?: Partial<AdaptiveSettings>, options?: { onlyDataset?: boolean }): Promise<Agent>;
}
const test = suite<Context>("result distillation", {} as Context);

const DEFAULT_PROMPT_BUDGET = 32_000 * 3;
const answer = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });
const rowsStep = (count: number, width: number) => planStep("s1", "dataset", "rows", { count, width });

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "distill-traced" });
  context.tools = await startTools();
  context.dataset = await startDataset();
  context.llm = await startScriptedLlm((body) => context.script(body));
  context.agents = [];
  context.serve = async (adaptive = {}, { onlyDataset = false } = {}) => {
    const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
    const dataset = { spec: context.dataset.spec, url: context.dataset.running.url };
    const agent = await serveAgent(agentSpec("distill-traced", { natural: true }), {
      components: onlyDataset ? [dataset.spec] : [...context.tools.specs, dataset.spec],
      baseUrls: { ...(onlyDataset ? {} : context.tools.baseUrls), dataset: dataset.url },
      llm: provider,
      componentName: "distill-traced",
      adaptive: { maxSemanticRetries: 0, ...adaptive },
      env: {},
    });
    context.agents.push(agent);
    return agent;
  };
});
test.after.each(async (context) => {
  await Promise.all(context.agents.map((a) => a.running.close()));
  context.agents = [];
  context.llm.requests.length = 0;
});
test.after(async ({ receiver, tools, dataset, llm }) => {
  await tools.close();
  await dataset.close();
  await llm.close();
  await shutdownTelemetry();
  await receiver.close();
});

const eventsOf = ({ receiver }: Context, requestId: string) => naturalRequestEvents(receiver, requestId);

test("a 2 MB result is distilled by map-reduce: every row read, content_lost false, the template of the next step sees all 10,000 rows", async (context) => {
  // A context big enough for 2 MB in at most 8 chunks (MAX_MAP_CALLS); the scripted server takes 1 MB bodies.
  const budget = 100_000 * 3;
  const agent = await context.serve({ contextTokens: 100_000 });
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep(10_000, 150), planStep("s2", "dataset", "count", { rows: "{{s1.response.data.rows}}" }, ["s1"])] });
    if (kind === "map") return { text: `part ${partOf(body)}: readings of ${partOf(body) * 1000} cities` };
    if (kind === "reduce") return { text: "DISTILLATE: 10000 readings from city-0 to city-9999, temperatures 0 to 39." };
    return { text: "There are 10000 readings, from 0 to 39 degrees." };
  };
  const { status, body } = await agent.post("/orchestrate/natural", { request: "how many readings, how warm?" }, { "x-manifold-request-id": "req-2mb" });
  assert.is(status, 200);
  const steps = body["steps"] as { step_id: string; output: any }[];
  assert.ok(JSON.stringify(steps[0]!.output).length > 2_000_000, "the tool answered with 2 MB");
  // The template read the executor's scope: the whole array, not a distillate or a trim.
  assert.equal(steps[1]!.output, { count: 10_000, last_city: "city-9999" });

  const maps = bodiesOf(context, "map");
  assert.ok(maps.length >= 2 && maps.length <= 8, String(maps.length));
  const seen = new Set(maps.flatMap((b) => [...userPrompt(b).matchAll(/"id":(\d+)/g)].map((m) => Number(m[1]))));
  assert.is(seen.size, 10_000, "every row was in a chunk the model read");
  assert.is(bodiesOf(context, "reduce").length, 1);
  for (const request of context.llm.requests) assert.ok(promptSize(request.body) <= budget, `${kindOf(request.body)}: ${promptSize(request.body)} bytes`);
  const [synthesis] = bodiesOf(context, "synthesis");
  assert.match(userPrompt(synthesis), /DISTILLATE: 10000 readings/);
  assert.not.match(userPrompt(synthesis), /city-5000/);

  const events = await eventsOf(context, "req-2mb");
  assert.equal(
    named(events, "result_distill.mapreduce_route").map((a) => [a["step_id"], a["reason"]]),
    [["s1", "threshold"]],
  );
  const [stage1] = named(events, "result_distill.stage1_complete");
  assert.equal([stage1?.["chunks"], stage1?.["chunk_strategy"]], [maps.length, "array"]);
  assert.equal(named(events, "result_distill.stage2_complete")[0]?.["reduce_calls"], 1);
  const [done] = named(events, "result_distill.mapreduce_complete");
  assert.is(done?.["chunk_strategy"], "array", "{total, rows: [...]}: the rows are the bulk");
  assert.is(done?.["chunks"], maps.length);
  assert.ok(Number(done?.["original_bytes"]) > 2_000_000 && Number(done?.["distilled_bytes"]) < 1000);
  const [trim] = named(events, "result_trim.completed").filter((a) => a["step_id"] === "s1");
  assert.equal([trim?.["method"], trim?.["content_lost"]], ["distillation", false]);
  assert.equal(named(events, "result_distill.llm_failed"), []);
});

test("a distillation the model fails falls back to the structural trim: llm_failed, result_trim.structural, content_lost true", async (context) => {
  const agent = await context.serve();
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep(100, 150)] });
    if (kind === "map") return { status: 500, body: { error: { message: "model down" } } };
    return { text: "About 100 readings." };
  };
  const { status, body } = await agent.post("/orchestrate/natural", { request: "readings?" }, { "x-manifold-request-id": "req-fallback" });
  assert.is(status, 200);
  assert.is(body["response"], "About 100 readings.");
  assert.is(bodiesOf(context, "map").length, 1, "20 KB: one chunk");
  assert.is(bodiesOf(context, "reduce").length, 0);
  assert.match(userPrompt(bodiesOf(context, "synthesis")[0]), /more items\)/);

  const events = await eventsOf(context, "req-fallback");
  const order = events.map((e) => e.name).filter((n) => n.startsWith("result_"));
  assert.equal(order, ["result_distill.mapreduce_route", "result_distill.llm_failed", "result_trim.structural", "result_trim.completed"]);
  assert.equal(
    named(events, "result_distill.llm_failed").map((a) => [a["step_id"], a["reason"], a["error_code"]]),
    [["s1", "llm_error", "LLM_ERROR"]],
  );
  const [trim] = named(events, "result_trim.completed");
  assert.equal([trim?.["step_id"], trim?.["method"], trim?.["content_lost"]], ["s1", "structural", true]);
  assert.ok(Number(trim?.["trimmed_bytes"]) <= 16_384 && Number(trim?.["original_bytes"]) > 16_384);
});

test("no room in the call budget: nothing is asked, the result is trimmed (llm_failed reason budget)", async (context) => {
  // 3 calls: the plan, the synthesis' own, one left: 200 KB needs 3 chunks and a merge.
  const agent = await context.serve({ maxLlmCalls: 3 });
  context.script = (body) => (kindOf(body) === "plan" ? answer({ steps: [rowsStep(1000, 150)] }) : { text: "Many readings." });
  const { status } = await agent.post("/orchestrate/natural", { request: "readings?" }, { "x-manifold-request-id": "req-budget" });
  assert.is(status, 200);
  assert.equal(
    context.llm.requests.map((r) => kindOf(r.body)),
    ["plan", "synthesis"],
  );
  const events = await eventsOf(context, "req-budget");
  assert.equal(
    named(events, "result_distill.llm_failed").map((a) => a["reason"]),
    ["budget"],
  );
  assert.is(named(events, "result_trim.completed")[0]?.["content_lost"], true);
});

test("the same result for the same request again: result_distill.cache_hit and no distillation call", async (context) => {
  const agent = await context.serve();
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep(100, 150)] });
    if (kind === "map") return { text: "CACHED-SUMMARY: 100 readings, 0 to 39 degrees." };
    return { text: "100 readings." };
  };
  const first = await agent.post("/orchestrate/natural", { request: "warmest reading?" }, { "x-manifold-request-id": "req-cache-1" });
  assert.is(first.status, 200);
  assert.is(bodiesOf(context, "map").length, 1);
  context.llm.requests.length = 0;
  const second = await agent.post("/orchestrate/natural", { request: "warmest reading?" }, { "x-manifold-request-id": "req-cache-2" });
  assert.is(second.status, 200);
  assert.equal(
    context.llm.requests.map((r) => kindOf(r.body)),
    ["plan", "synthesis"],
  );
  assert.match(userPrompt(bodiesOf(context, "synthesis")[0]), /CACHED-SUMMARY/);
  const events = await eventsOf(context, "req-cache-2");
  assert.equal(
    named(events, "result_distill.cache_hit").map((a) => a["step_id"]),
    ["s1"],
  );
  assert.equal(named(events, "result_distill.mapreduce_route"), []);
  assert.is(named(events, "result_trim.completed")[0]?.["content_lost"], false);
  // Another request: the summary served a different question, so the result is read again.
  context.llm.requests.length = 0;
  await agent.post("/orchestrate/natural", { request: "coldest reading?" });
  assert.is(bodiesOf(context, "map").length, 1);
});

test("the synthesis of a 10,000-row result answers from the distillate, every prompt within the default budget", async (context) => {
  const agent = await context.serve();
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep(10_000, 0)] });
    if (kind === "map") return { text: `part ${partOf(body)}: 1,000-odd readings` };
    if (kind === "reduce") return { text: "ROWS-DISTILLATE: 10000 readings, city-0 to city-9999." };
    return { text: "10000 readings." };
  };
  const { status, body } = await agent.post("/orchestrate/natural", { request: "summarise the readings" });
  assert.is(status, 200);
  assert.is(body["response"], "10000 readings.");
  assert.ok(bodiesOf(context, "map").length >= 2);
  for (const request of context.llm.requests)
    assert.ok(promptSize(request.body) <= DEFAULT_PROMPT_BUDGET, `${kindOf(request.body)}: ${promptSize(request.body)}`);
  const [synthesis] = bodiesOf(context, "synthesis");
  assert.match(userPrompt(synthesis), /ROWS-DISTILLATE/);
  assert.not.match(userPrompt(synthesis), /city-9998/);
  assert.ok(promptSize(synthesis) < 4096, String(promptSize(synthesis)));
});

test("a continuation is shown the distillate of an earlier result, and the synthesis reuses it from the cache", async (context) => {
  const agent = await context.serve();
  context.script = (body) => {
    const kind = kindOf(body);
    const system = String(body.messages[0].content);
    if (kind === "plan" && system.includes("earlier phases already ran")) return answer({ steps: [] });
    if (kind === "plan") return answer({ steps: [rowsStep(1000, 100)], continue: true });
    if (kind === "map") return { text: `part ${partOf(body)} of the readings` };
    if (kind === "reduce") return { text: "PHASE-DISTILLATE: 1000 readings." };
    return { text: "1000 readings." };
  };
  const { status } = await agent.post("/orchestrate/natural", { request: "readings, then what next?" }, { "x-manifold-request-id": "req-continue" });
  assert.is(status, 200);
  const continuation = context.llm.requests.map((r) => r.body).find((b) => String(b.messages[0].content).includes("earlier phases already ran"));
  assert.ok(continuation !== undefined);
  assert.match(userPrompt(continuation), /PHASE-DISTILLATE/);
  assert.not.match(userPrompt(continuation), /city-999/);
  assert.ok(promptSize(continuation) <= DEFAULT_PROMPT_BUDGET);
  assert.match(userPrompt(bodiesOf(context, "synthesis")[0]), /PHASE-DISTILLATE/);
  assert.is(bodiesOf(context, "reduce").length, 1, "distilled once, for the continuation");
  const events = await eventsOf(context, "req-continue");
  assert.equal(
    named(events, "result_trim.completed").map((a) => [a["purpose"], a["method"], a["content_lost"]]),
    [
      ["continuation", "distillation", false],
      ["synthesis", "distillation", false],
    ],
  );
  assert.is(named(events, "result_distill.cache_hit").length, 1);
});

test("a result within the step budget that the prompt has no room for is distilled with reason context", async (context) => {
  // 6,000 bytes of prompt: a 6 KB result fits MANIFOLD_RESULT_BUDGET_BYTES but not the synthesis prompt.
  const agent = await context.serve({ contextTokens: 2000 }, { onlyDataset: true });
  context.script = (body) => {
    const kind = kindOf(body);
    if (kind === "plan") return answer({ steps: [rowsStep(60, 60)] });
    if (kind === "map") return { text: `part ${partOf(body)}` };
    if (kind === "reduce") return { text: "SMALL-DISTILLATE" };
    return { text: "60 readings." };
  };
  const { status } = await agent.post("/orchestrate/natural", { request: "readings" }, { "x-manifold-request-id": "req-context" });
  assert.is(status, 200);
  for (const request of context.llm.requests) assert.ok(promptSize(request.body) <= 6000, `${kindOf(request.body)}: ${promptSize(request.body)}`);
  const events = await eventsOf(context, "req-context");
  assert.equal(
    named(events, "result_distill.mapreduce_route").map((a) => a["reason"]),
    ["context"],
  );
  assert.match(userPrompt(bodiesOf(context, "synthesis")[0]), /SMALL-DISTILLATE/);
});

test.run();
