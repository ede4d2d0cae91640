/**
 * A natural-mode request's budgets (issue 27 item 5), with the real `openai` client against the
 * scripted OpenAI-compatible server and real tools on loopback: the whole request within
 * MANIFOLD_ORCHESTRATION_TIMEOUT (on a manual clock: a hung model call or tool step ends in 504 and is
 * aborted), at most MANIFOLD_MAX_LLM_CALLS model calls (one kept for the answer), token usage by
 * phase in the answer's metadata, and a client hanging up aborting the model call it waits for.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createChatExtension } from "../../runtime/chat/index.js";
import { defineAgent } from "../../runtime/codegen/v1/index.js";
import { serveComponent, type RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import { initTelemetry, shutdownTelemetry } from "../../runtime/telemetry/index.js";
import { createOrchestrationExtension, type OrchestrationOptions } from "../../runtime/orchestration/index.js";
import { createManualClock, type ManualClock } from "../support/clock.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { postSse } from "../support/sse-client.js";
import { exportToReceiver, startOtlpReceiver } from "../telemetry/otlp-receiver.js";
import { eventually, within } from "../support/wait.js";
import { agent as agentManifest, agentSpec as specOf } from "../support/specs.js";
import { agentSpec, memoryLog, startTools, type Tools, planStep, planText } from "./support.js";

const step = planStep;
const SUM_PLAN = planText([step("sum", "worker", "add", { a: 20, b: 22 })]);
/** A plan the static check refuses (no such component): the planner asks the model again. */
const BAD_PLAN = planText([step("sum", "abacus", "add", { a: 1, b: 2 })]);

interface Agent {
  readonly running: RunningComponent;
  readonly url: string;
  post(path: string, body: unknown, init?: { signal?: AbortSignal }): Promise<{ status: number; body: any }>;
}

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  clock: ManualClock;
  agents: Agent[];
  /** An agent with natural mode and chat over the tools and the scripted model. */
  serve(options?: Partial<OrchestrationOptions>): Promise<Agent>;
}

const budgets = suite<Context>("natural-mode budgets", {} as Context);

async function setUp(context: Context): Promise<void> {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  context.clock = createManualClock();
  context.agents = [];
  context.serve = async (options = {}) => {
    const spec = agentSpec("budget-agent", { natural: true });
    // No retries by the client: each model call the orchestrator makes is one request the server sees.
    const llm = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
    const orchestration = createOrchestrationExtension(spec, {
      components: context.tools.specs,
      baseUrls: context.tools.baseUrls,
      executionStore: false,
      registry: false,
      llm,
      llmDebug: false,
      clock: context.clock,
      log: memoryLog().log,
      env: {},
      ...options,
    });
    const chat = createChatExtension({ orchestrator: orchestration.orchestrator, env: {} });
    const running = await serveComponent(spec, {
      port: 0,
      handlers: {},
      registry: false,
      handleSignals: false,
      log: () => undefined,
      extensions: [orchestration, chat],
      drainTimeoutMs: 500,
    });
    const agent: Agent = {
      running,
      url: running.url,
      post: async (path, body, init = {}) => {
        const response = await fetch(running.url + path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          ...(init.signal === undefined ? {} : { signal: init.signal }),
        });
        return { status: response.status, body: await response.json() };
      },
    };
    context.agents.push(agent);
    return agent;
  };
}

async function tearDown({ agents, tools, llm }: Context): Promise<void> {
  for (const agent of agents) await agent.running.close();
  await tools.close();
  await llm.close();
}

budgets.before.each(setUp);
budgets.after.each(tearDown);

budgets("a model call that hangs past MANIFOLD_ORCHESTRATION_TIMEOUT ends the request in 504 TIMEOUT and is aborted", async (context) => {
  const { llm, clock, tools } = context;
  const agent = await context.serve({ adaptive: { timeoutMs: 60_000 } });
  llm.reply({ hang: true });
  const answer = agent.post("/orchestrate/natural", { request: "what is 20 + 22?" });
  await eventually("the planning call", () => llm.requests.length === 1);
  await clock.advance(59_999);
  assert.is(llm.requests[0]!.aborted, false, "not before the timeout");
  await clock.advance(1);
  const { status, body } = await within("the answer", answer);
  assert.is(status, 504, JSON.stringify(body));
  assert.is(body.error.code, "TIMEOUT");
  assert.match(body.error.message, /MANIFOLD_ORCHESTRATION_TIMEOUT/);
  await eventually("the hung model call closed", () => llm.requests[0]!.aborted);
  assert.is(llm.requests.length, 1, "no further model call");
  assert.is(tools.calls.length, 0, "nothing dispatched");
});

budgets("a tool step that hangs past the timeout ends the request in 504 TIMEOUT: the step is aborted and nothing is synthesised", async (context) => {
  const { llm, clock, tools } = context;
  const agent = await context.serve({ adaptive: { timeoutMs: 60_000 } });
  llm.reply({ text: planText([step("nap", "worker", "sleep", { ms: 600_000 })]) });
  const answer = agent.post("/orchestrate/natural", { request: "take a long nap" });
  await eventually("the tool call", () => tools.calls.length === 1);
  await clock.advance(60_000);
  const { status, body } = await within("the answer", answer);
  assert.is(status, 504, JSON.stringify(body));
  assert.is(body.error.code, "TIMEOUT");
  await eventually("the tool call aborted", () => tools.calls[0]!.aborted);
  assert.is(tools.calls.length, 1, "no retry of the step");
  assert.is(llm.requests.length, 1, "no synthesis after the timeout");
});

budgets("without a synthesis to ask for, a tool step past the timeout is still 504 TIMEOUT, not a failed run", async (context) => {
  const { llm, clock, tools } = context;
  const agent = await context.serve({ adaptive: { timeoutMs: 60_000 } });
  llm.reply({ text: planText([step("nap", "worker", "sleep", { ms: 600_000 })]) });
  const answer = agent.post("/orchestrate/natural", { request: "take a long nap", ai_synthesis: false });
  await eventually("the tool call", () => tools.calls.length === 1);
  await clock.advance(60_000);
  const { status, body } = await within("the answer", answer);
  assert.is(status, 504, JSON.stringify(body));
  assert.is(body.error.code, "TIMEOUT");
});

budgets("a prompt that does not fit MANIFOLD_LLM_CONTEXT_TOKENS is never sent: 422 BUDGET_EXCEEDED naming the variable", async (context) => {
  const { llm, tools } = context;
  const agent = await context.serve({ adaptive: { contextTokens: 2_000 } });
  llm.reply({ text: SUM_PLAN }, { text: "42" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: `what is 20 + 22? ${"please ".repeat(900)}` });
  assert.is(status, 422, JSON.stringify(body));
  assert.is(body.error.code, "BUDGET_EXCEEDED");
  assert.match(body.error.message, /MANIFOLD_LLM_CONTEXT_TOKENS=2000/);
  assert.is(llm.requests.length, 0, "nothing was sent to the model");
  assert.is(tools.calls.length, 0);
});

budgets("MANIFOLD_MAX_LLM_CALLS: plan regenerations past the budget end in 422 BUDGET_EXCEEDED after exactly the allowed calls", async (context) => {
  const { llm, tools } = context;
  const agent = await context.serve({ adaptive: { maxLlmCalls: 2 } });
  llm.reply({ text: BAD_PLAN }, { text: BAD_PLAN }, { text: SUM_PLAN }, { text: "42" });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add", ai_synthesis: false });
  assert.is(status, 422, JSON.stringify(body));
  assert.is(body.error.code, "BUDGET_EXCEEDED");
  assert.match(body.error.message, /MANIFOLD_MAX_LLM_CALLS/);
  assert.is(llm.requests.length, 2, "the third call is never sent");
  assert.is(tools.calls.length, 0);
});

budgets("with synthesis asked, one call of the budget is kept for it: the plan gets the rest", async (context) => {
  const { llm, tools } = context;
  const agent = await context.serve({ adaptive: { maxLlmCalls: 3 } });
  // Two plan calls fit (three less the synthesis's); a third would be unscripted (a 500, not a 422).
  llm.reply({ text: BAD_PLAN }, { text: BAD_PLAN });
  const refused = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(refused.status, 422, JSON.stringify(refused.body));
  assert.is(refused.body.error.code, "BUDGET_EXCEEDED");
  assert.match(refused.body.error.message, /kept for the answer/);
  assert.is(llm.requests.length, 2);
  assert.is(tools.calls.length, 0);
  // The same budget answers a request that needs one regeneration: two plans and the synthesis.
  const sent = llm.requests.length;
  llm.reply({ text: BAD_PLAN }, { text: SUM_PLAN }, { text: "It is 42." });
  const { status, body } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.response, "It is 42.");
  assert.is(llm.requests.length - sent, 3);
  assert.is(body.metadata.llm_calls, 3);
});

budgets("usage_by_phase: POST /orchestrate/natural answers it in its metadata, and chat keeps it on the assistant message", async (context) => {
  const { llm } = context;
  const agent = await context.serve();
  llm.reply(
    { text: BAD_PLAN, usage: { prompt_tokens: 300, completion_tokens: 40 } },
    { text: SUM_PLAN, usage: { prompt_tokens: 350, completion_tokens: 30 } },
    { text: "It is 42.", usage: { prompt_tokens: 120, completion_tokens: 4 } },
  );
  const { status, body } = await agent.post("/orchestrate/natural", { request: "what is 20 + 22?" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body.metadata, {
    usage_by_phase: {
      plan_generation: { prompt_tokens: 650, completion_tokens: 70, total_tokens: 720 },
      synthesis: { prompt_tokens: 120, completion_tokens: 4, total_tokens: 124 },
    },
    llm_calls: 3,
  });
  llm.reply(
    { text: SUM_PLAN, usage: { prompt_tokens: 200, completion_tokens: 20 } },
    { text: "It is 42.", usage: { prompt_tokens: 90, completion_tokens: 5 } },
  );
  const chat = await postSse(`${agent.url}/chat/stream`, { message: "what is 20 + 22?" });
  const done = chat.events.at(-1)!;
  assert.is(done.event, "done", JSON.stringify(chat.events));
  assert.equal(done.data.message.metadata.usage_by_phase, {
    plan_generation: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
    synthesis_streaming: { prompt_tokens: 90, completion_tokens: 5, total_tokens: 95 },
  });
});

budgets("a client hanging up aborts the model call it waits for, and no tool is called", async (context) => {
  const { llm, tools } = context;
  const agent = await context.serve();
  llm.reply({ hang: true }, { text: SUM_PLAN });
  const controller = new AbortController();
  const answer = agent.post("/orchestrate/natural", { request: "what is 20 + 22?" }, { signal: controller.signal }).catch((error: Error) => error);
  await eventually("the planning call", () => llm.requests.length === 1);
  controller.abort();
  assert.instance(await within("the client's abort", answer), Error);
  await eventually("the model call closed", () => llm.requests[0]!.aborted);
  assert.is(llm.requests.length, 1, "no further model call");
  assert.is(tools.calls.length, 0, "no tool called");
});

budgets("a chat stream hung up while planning aborts the model call", async (context) => {
  const { llm, tools } = context;
  const agent = await context.serve();
  llm.reply({ hang: true });
  const planning = eventually("the planning call", () => llm.requests.length === 1);
  await within("the stream", postSse(`${agent.url}/chat/stream`, { message: "what is 20 + 22?" }, { hangUp: planning }));
  await eventually("the model call closed", () => llm.requests[0]!.aborted);
  assert.is(llm.requests.length, 1);
  assert.is(tools.calls.length, 0);
});

budgets.run();

/** The same budget seen on the request's span: the spec's `orchestrator.budget.exhausted` event. */
const traced = suite<Context & { receiver: Awaited<ReturnType<typeof startOtlpReceiver>> }>("natural-mode budget telemetry", {} as never);

traced.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  exportToReceiver(context.receiver.url);
  await initTelemetry({ serviceName: "budget-traced" });
});
traced.before.each(setUp);
traced.after.each(tearDown);
traced.after(async ({ receiver }) => {
  await shutdownTelemetry();
  await receiver.close();
});

traced("a call the budget refuses is an orchestrator.budget.exhausted event naming the limit and the calls used", async (context) => {
  const { llm, receiver } = context;
  const agent = await context.serve({ adaptive: { maxLlmCalls: 3 } });
  llm.reply({ text: BAD_PLAN }, { text: BAD_PLAN });
  const { status } = await agent.post("/orchestrate/natural", { request: "add" });
  assert.is(status, 422);
  const exhausted = () => receiver.spans.flatMap((s) => s.events).find((e) => e.name === "orchestrator.budget.exhausted");
  await receiver.until(() => exhausted() !== undefined, "the budget event");
  assert.equal(exhausted()!.attributes, { request_id: exhausted()!.attributes["request_id"], budget: "llm_calls", limit: 3, used: 2, phase_number: 1 });
  assert.type(exhausted()!.attributes["request_id"], "string");
});

traced.run();

/** The budget variables are read when the agent starts: a bad value stops the start, naming the variable, never a request. */
const startUp = suite("natural-mode budget variables at start-up");

const NaturalAgent = defineAgent<{}, {}>(specOf(agentManifest("budget-start", { description: "natural", capabilities: {} })), {});

for (const [name, value, says] of [
  ["MANIFOLD_MAX_PHASES", "0", /MANIFOLD_MAX_PHASES must be an integer from 1 to 10/],
  ["MANIFOLD_MAX_LLM_CALLS", "1", /MANIFOLD_MAX_LLM_CALLS must be an integer from 2 to 100/],
  ["MANIFOLD_ORCHESTRATION_TIMEOUT", "soon", /MANIFOLD_ORCHESTRATION_TIMEOUT must be a duration/],
  ["MANIFOLD_RESULT_BUDGET_BYTES", "12", /MANIFOLD_RESULT_BUDGET_BYTES must be an integer from 256/],
] as const) {
  startUp(`${name}=${value} stops the agent's start`, async () => {
    process.env[name] = value;
    try {
      const agent = await NaturalAgent.serve({ port: 0, registry: false, handleSignals: false, log: () => {}, handlers: {}, llm: false });
      await agent.close();
      assert.unreachable("the agent started");
    } catch (error) {
      assert.instance(error, RangeError);
      assert.match((error as Error).message, says);
    } finally {
      delete process.env[name];
    }
  });
}

startUp.run();
