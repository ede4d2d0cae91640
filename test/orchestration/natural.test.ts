/**
 * Natural mode against a language model: the real `openai` client talking to a scripted
 * OpenAI-compatible server on loopback, real tools on loopback. The model's plan is checked before
 * anything is dispatched, regenerated with the problems, and the answer is synthesised from the
 * results.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmDebugStore, createLlmProvider, resolveLlmConfig, type LlmDebugStore, type LlmProvider } from "../../runtime/llm/index.js";
import type { Plan } from "../../runtime/orchestration/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, capability, memoryLog, serveAgent, startTools, workflowStep, type Tools, planStep, planText } from "./support.js";

const KEY = "sk-test-NATURAL-secret-4242";

/** A component known only by its spec (never called): one public and one internal capability. */
const VAULT: ComponentSpec = {
  kind: "tool",
  name: "vault",
  description: "keeps secrets",
  version: "1.0.0",
  capabilities: [capability("open_box"), { ...capability("purge_everything"), internal: true }],
};

const step = planStep;
const GOOD_PLAN = planText([
  step("sum", "worker", "add", { a: 20, b: 22 }),
  step("say", "worker", "echo", { text: "the answer is {{sum.response.data.sum}}", n: "{{sum.response.data.sum}}" }, ["sum"]),
]);

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  provider: LlmProvider;
  logs: string[];
  debug: LlmDebugStore;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}

const natural = suite<Context>("natural mode");

natural.before.each(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  context.provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: KEY, model: "test-model", maxRetries: 2 }, env: {} })!,
  );
  const { lines, log } = memoryLog();
  context.logs = lines;
  context.debug = createLlmDebugStore({ env: {} });
  context.agent = await serveAgent(agentSpec("natural-agent", { natural: true }), {
    components: [...context.tools.specs, VAULT],
    baseUrls: context.tools.baseUrls,
    llm: context.provider,
    llmDebug: context.debug,
    componentName: "natural-agent",
    log,
  });
});

natural.after.each(async ({ tools, llm, agent, debug }) => {
  await agent.running.close();
  await tools.close();
  await llm.close();
  await debug.close();
});

natural("plans, runs with templates resolved between steps, and answers in prose", async ({ agent, llm, tools }) => {
  llm.reply(
    { text: GOOD_PLAN, usage: { prompt_tokens: 300, completion_tokens: 40 } },
    { text: "It is 42.", usage: { prompt_tokens: 120, completion_tokens: 4 } },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "what is 20 + 22?" }, { "x-manifold-request-id": "req-natural-1" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["response"], "It is 42.");
  assert.equal(body["tools_used"], ["worker"]);
  assert.is(body["confidence"], 1);
  assert.is(body["request_id"], "req-natural-1");
  assert.match(String(body["plan_id"]), /^natural-\d+$/);
  assert.equal(
    tools.calls.map((c) => [c.capability, c.input]),
    [
      ["add", { a: 20, b: 22 }],
      ["echo", { text: "the answer is 42", n: 42 }],
    ],
  );
  // Planning asks for JSON with a schema; synthesis carries no response_format.
  const [planning, synthesis] = llm.requests;
  assert.is(planning!.body.response_format?.type, "json_schema");
  assert.is(synthesis!.body.response_format, undefined);
  assert.is(planning!.headers["authorization"], `Bearer ${KEY}`);
  assert.match(JSON.stringify(synthesis!.body.messages), /the answer is 42/);
});

natural("internal capabilities are absent from the planning prompt; public ones are there with their fields", async ({ agent, llm }) => {
  llm.reply({ text: planText([]) }, { text: "Nothing to do." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "say hello" });
  assert.is(status, 200);
  assert.is(body["confidence"], 1, "an empty plan needs nothing");
  const prompt = JSON.stringify(llm.requests[0]!.body.messages);
  assert.match(prompt, /open_box/);
  assert.match(prompt, /capability \\"add\\"[\s\S]*a: number, b: number/);
  assert.not.match(prompt, /purge_everything/);
});

natural("a hallucinated agent goes back to the model with the problem, and the regenerated plan runs", async ({ agent, llm, tools }) => {
  llm.reply({ text: planText([step("sum", "calculator-service", "add", { a: 1, b: 2 })]) }, { text: GOOD_PLAN }, { text: "42" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["confidence"], 0.9, "one regeneration lowers confidence");
  assert.is(llm.requests.length, 3);
  const regeneration = JSON.stringify(llm.requests[1]!.body.messages);
  assert.match(regeneration, /no component is named calculator-service/);
  assert.match(regeneration, /calculator-service/, "the model sees its own earlier answer");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add", "echo"],
    "only the checked plan ran",
  );
});

natural("parameters that fail the input schema are regenerated", async ({ agent, llm, tools }) => {
  llm.reply(
    { text: planText([step("sum", "worker", "add", { a: "twenty", b: 22, c: 1 })]) },
    { text: planText([step("sum", "worker", "add", { a: 20, b: 22 })]) },
    { text: "42" },
  );
  const { status } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 200);
  const problems = JSON.stringify(llm.requests[1]!.body.messages);
  assert.match(problems, /\/steps\/0\/metadata\/parameters\/a/);
  assert.match(problems, /no input `c`/);
  assert.is(tools.calls.length, 1);
});

natural("a plan still invalid after the rounds is 422 PLAN_INVALID with the problems, and no tool is called", async ({ agent, llm, tools }) => {
  const bad = { text: planText([step("s1", "worker", "add", { a: 1 }), step("s2", "worker", "echo", { x: "{{s1.response.data.total}}" }, ["s1"])]) };
  llm.reply(bad, bad, bad);
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 422);
  const error = body["error"] as { code: string; details: { pointer: string; message: string }[] };
  assert.is(error.code, "PLAN_INVALID");
  assert.equal(error.details.map((d) => d.pointer).sort(), ["/steps/0/metadata/parameters", "/steps/1/metadata/parameters/x"]);
  assert.match(error.details.find((d) => d.pointer.endsWith("/x"))!.message, /total/);
  assert.is(llm.requests.length, 3, "the first plan and MANIFOLD_MAX_VALIDATION_ROUNDS=2 regenerations");
  assert.is(tools.calls.length, 0);
});

natural("an answer that is not a JSON plan is corrected once", async ({ agent, llm }) => {
  llm.reply({ text: "Sure! First I will add the numbers." }, { text: `\`\`\`json\n${GOOD_PLAN}\n\`\`\`` }, { text: "42" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 200, JSON.stringify(body));
  assert.match(JSON.stringify(llm.requests[1]!.body.messages), /not a valid plan: it is not JSON/);
  assert.is(body["confidence"], 1, "a parse correction is not a regeneration");

  llm.reply({ text: "no" }, { text: "still no" });
  const twice = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(twice.status, 502);
  assert.is((twice.body["error"] as { code: string }).code, "LLM_ERROR");
});

natural("ai_synthesis false returns the raw step results without a second model call", async ({ agent, llm }) => {
  llm.reply({ text: GOOD_PLAN });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add", ai_synthesis: false });
  assert.is(status, 200);
  assert.not.ok("response" in body);
  assert.equal((body["steps"] as { output: unknown }[])[0]!.output, { sum: 42 });
  assert.is(llm.requests.length, 1);
});

natural("a 429 from the model is retried after its Retry-After", async ({ agent, llm }) => {
  llm.reply({ status: 429, headers: { "retry-after": "1" }, body: { error: { message: "slow down" } } }, { text: GOOD_PLAN }, { text: "42" });
  const { status } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 200);
  assert.is(llm.requests.length, 3);
  assert.ok(llm.requests[1]!.at - llm.requests[0]!.at >= 900, "waited for Retry-After");
});

natural("streaming synthesis passes each piece on as it arrives", async ({ agent, llm }) => {
  llm.reply({ text: GOOD_PLAN }, { text: "It is forty two.", chunks: 4 });
  const pieces: string[] = [];
  const result = await agent.extension.orchestrator.runNatural("add", { synthesise: true, onChunk: (piece) => pieces.push(piece) });
  assert.is(result.synthesis, "It is forty two.");
  assert.ok(pieces.length >= 2, `several pieces, got ${JSON.stringify(pieces)}`);
  assert.is(pieces.join(""), "It is forty two.");
  assert.is(llm.requests[1]!.body.stream, true);
});

natural("an endpoint that cannot stream still answers: asked again without streaming, its text passed on whole", async ({ agent, llm }) => {
  llm.reply({ text: GOOD_PLAN }, { status: 400, body: { error: { message: "stream is not supported" } } }, { text: "Forty two." });
  const pieces: string[] = [];
  const result = await agent.extension.orchestrator.runNatural("add", { synthesise: true, onChunk: (piece) => pieces.push(piece) });
  assert.is(result.synthesis, "Forty two.");
  assert.equal(pieces, ["Forty two."]);
  assert.equal(
    llm.requests.map((r) => r.body.stream === true),
    [false, true, false],
  );
});

natural("step results beyond the synthesis budget are trimmed, the cut marked", async ({ tools, llm, provider }) => {
  const agent = await serveAgent(agentSpec("tight", { natural: true }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    llm: provider,
    synthesisBudgetBytes: 512,
  });
  try {
    const long = "lorem ipsum ".repeat(400);
    // Over the budget the result is distilled first; a distillation the model refuses falls back to the trim.
    llm.reply({ text: planText([step("say", "worker", "echo", { text: long })]) }, { status: 400, body: { error: { message: "no" } } }, { text: "ok" });
    const { status } = await agent.post("/orchestrate/natural", { request: "repeat" });
    assert.is(status, 200);
    const prompt = llm.requests[2]!.body.messages[1].content as string;
    assert.match(prompt, /more characters\)/);
    assert.ok(prompt.length < long.length, "the synthesis prompt holds the trimmed result, not the whole");
  } finally {
    await agent.running.close();
  }
});

natural("each request's model calls land in its LLM debug record", async ({ agent, llm, debug }) => {
  llm.reply(
    { text: "nope" },
    { text: GOOD_PLAN, usage: { prompt_tokens: 200, completion_tokens: 30 } },
    { text: "42", usage: { prompt_tokens: 90, completion_tokens: 2 } },
  );
  const { status } = await agent.post("/orchestrate/natural", { request: "add" }, { "x-manifold-request-id": "req-debug-1" });
  assert.is(status, 200);
  // Records are written off the request path.
  let record = await debug.get("req-debug-1");
  for (let i = 0; i < 50 && (record?.interactions.length ?? 0) < 3; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    record = await debug.get("req-debug-1");
  }
  assert.ok(record !== undefined);
  assert.equal(record.source_components, ["natural-agent"]);
  assert.equal(
    record.interactions.map((i) => [i.type, i.attempt, i.success, i.total_tokens]),
    [
      ["plan_generation", 1, true, record.interactions[0]!.total_tokens],
      ["plan_generation", 2, true, 230],
      ["synthesis", 1, true, 92],
    ],
  );
  assert.match(record.interactions[1]!.prompt, /\[system\][\s\S]*worker[\s\S]*\[user\]\nadd/);
  assert.is(record.interactions[2]!.response, "42");
});

natural("an after_planning hook's replacement is checked against the catalog too", async ({ tools, llm }) => {
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: llm.baseUrl, apiKey: KEY, model: "m" }, env: {} })!);
  const replace = (plan: Plan): Plan => ({ ...plan, steps: [{ ...plan.steps[0]!, agent_name: "ghost" }] });
  const agent = await serveAgent(agentSpec("hooked", { natural: true }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    llm: provider,
    hooks: [{ name: "swap", phase: "after_planning", mode: "fail_closed", run: ({ plan }) => replace(plan!) }],
  });
  try {
    llm.reply({ text: GOOD_PLAN });
    const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
    assert.is(status, 422);
    assert.is((body["error"] as { code: string }).code, "PLAN_INVALID");
    assert.is(tools.calls.length, 0);
  } finally {
    await agent.running.close();
  }
});

natural("ai_synthesis on a workflow adds the synthesised response", async ({ tools, llm, provider }) => {
  const workflow = {
    name: "sum-up",
    version: "1",
    inputs: [{ name: "a", type: "number" as const, required: true }],
    steps: [workflowStep("sum", "add", { a: "${inputs.a}", b: 1 })],
    outputs: [{ name: "total", value: "${steps.sum.output.sum}", type: { type: "number" as const }, required: true }],
  };
  const agent = await serveAgent(agentSpec("wf", { workflows: [workflow] }), { components: tools.specs, baseUrls: tools.baseUrls, llm: provider });
  try {
    llm.reply({ text: "The total is 3." });
    const { status, body } = await agent.post("/orchestrate/sum-up", { a: 2, ai_synthesis: true });
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body["response"], "The total is 3.");
    assert.match(llm.requests[0]!.body.messages[1].content, /"total": 3/);
  } finally {
    await agent.running.close();
  }
});

natural("no key in any log line, even when the endpoint refuses the key", async ({ agent, llm, logs }) => {
  llm.reply({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 502);
  const error = body["error"] as { code: string; message: string };
  assert.is(error.code, "LLM_ERROR");
  assert.match(error.message, /401/);
  assert.not.match(JSON.stringify(body), KEY);
  assert.not.ok(
    logs.some((line) => line.includes(KEY)),
    logs.join("\n"),
  );
});

natural.run();

const unavailable = suite("natural mode without a language model");
unavailable("503 LLM_UNAVAILABLE naming the variables; the rest of the agent serves", async () => {
  const tools = await startTools();
  const agent = await serveAgent(agentSpec("no-model", { natural: true, custom: true }), { components: tools.specs, baseUrls: tools.baseUrls });
  try {
    const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
    assert.is(status, 503);
    const error = body["error"] as { code: string; message: string };
    assert.is(error.code, "LLM_UNAVAILABLE");
    assert.match(error.message, /MANIFOLD_LLM_BASE_URL/);
    assert.match(error.message, /OPENAI_API_KEY/);
    const custom = await agent.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "add", params: { a: 1, b: 2 } }] });
    assert.is(custom.status, 200);
  } finally {
    await agent.running.close();
    await tools.close();
  }
});
unavailable.run();
