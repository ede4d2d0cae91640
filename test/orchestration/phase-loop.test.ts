/**
 * Natural mode's phase loop with the real `openai` client against a scripted OpenAI-compatible
 * server and real tools on loopback: a plan that asks to continue gets a continuation plan built
 * from its results (checked like a first plan, earlier steps referenced with the same templates), a
 * continuation with no steps ends the loop, remediation after skipped steps, the forced terminal when
 * the same capability fails again, the phase limit, normalisation reported, and a clarification
 * instead of a guess (`needs_input`), with nothing new dispatched.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createLlmProvider, resolveLlmConfig, type LlmProvider } from "../../runtime/llm/index.js";
import type { AdaptiveSettings } from "../../runtime/orchestration/natural/adaptive.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { agentSpec, serveAgent, startTools, type Tools, planStep } from "./support.js";

const step = (step_id: string, cap: string, parameters: Record<string, unknown>, depends_on: string[] = []) =>
  planStep(step_id, "worker", cap, parameters, depends_on);
const answer = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });

/** What kind of request the model got: the json_schema name, or `text` (synthesis). */
const kindOf = (body: any): string => body.response_format?.json_schema?.name ?? "text";
const userText = (body: any): string => body.messages.map((m: { content: string }) => m.content).join("\n");

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  provider: LlmProvider;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}

const loop = suite<Context>("phase loop");

async function start(context: Context, adaptive: Partial<AdaptiveSettings> = {}): Promise<void> {
  context.agent = await serveAgent(agentSpec("phase-agent", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: context.provider,
    componentName: "phase-agent",
    adaptive: { maxSemanticRetries: 0, ...adaptive },
  });
}

loop.before.each(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  context.provider = createLlmProvider(
    resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "phase-model", maxRetries: 0 }, env: {} })!,
  );
});

loop.after.each(async ({ tools, llm, agent }) => {
  await agent?.running.close();
  await tools.close();
  await llm.close();
});

loop("two phases: a lookup, then an action chosen from its result, referencing the earlier step", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 20, b: 22 })], continue: true }),
    // The continuation reuses the id s1 and reads s1: which one? Ambiguous, so it goes back to the model.
    answer({ steps: [step("s1", "echo", { total: "{{s1.response.data.sum}}", tag: "act" }, ["s1"])] }),
    answer({ steps: [step("s2", "echo", { total: "{{s1.response.data.sum}}", tag: "act" }, ["s1"])] }),
    { text: "The total is 42." },
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "add 20 and 22, then act on the total" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["status"], "completed");
  assert.is(body["phases"], 2);
  assert.is(body["response"], "The total is 42.");
  const steps = body["steps"] as { step_id: string; status: string; output?: unknown }[];
  assert.equal(
    steps.map((s) => [s.step_id, s.status]),
    [
      ["s1", "completed"],
      ["s2", "completed"],
    ],
  );
  assert.equal(
    tools.calls.map((c) => [c.capability, c.input]),
    [
      ["add", { a: 20, b: 22 }],
      ["echo", { total: 42, tag: "act" }],
    ],
    "phase 2 ran once, with phase 1's output resolved",
  );
  const kinds = llm.requests.map((r) => kindOf(r.body));
  assert.equal(kinds, ["routing_plan", "routing_plan", "routing_plan", "text"]);
  assert.match(userText(llm.requests[2]!.body), /duplicate step id s1/, "the ambiguous id was sent back, not guessed");
  const continuation = userText(llm.requests[1]!.body);
  assert.match(continuation, /phase 2 of at most 3/);
  assert.match(continuation, /"sum":\s*42/, "the continuation request carries phase 1's result");
  const plan = body["plan"] as { phases: { phase: number; step_ids: string[]; continue: boolean; reason: string }[] };
  assert.equal(
    plan.phases.map((p) => [p.phase, p.step_ids, p.continue, p.reason]),
    [
      [1, ["s1"], true, "request"],
      [2, ["s2"], false, "continue"],
    ],
  );
  const usage = (body["metadata"] as { usage_by_phase: Record<string, unknown> }).usage_by_phase;
  assert.ok(usage["continuation_plan"] !== undefined, "the continuation's tokens are accounted under their own phase");
});

loop("a continuation that answers no steps ends the loop; a plan without continue asks for none", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 2 })], continue: true }), answer({ steps: [] }), { text: "3." });
  const first = await context.agent.post("/orchestrate/natural", { request: "1 + 2" });
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.is(first.body["phases"], 2);
  assert.is(tools.calls.length, 1);
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 2 })] }), { text: "3." });
  const second = await context.agent.post("/orchestrate/natural", { request: "1 + 2 again" });
  assert.is(second.body["phases"], 1);
  assert.equal(
    llm.requests.map((r) => kindOf(r.body)),
    ["routing_plan", "routing_plan", "text", "routing_plan", "text"],
  );
});

loop("MANIFOLD_MAX_PHASES bounds the loop however often the model asks to continue", async (context) => {
  await start(context, { maxPhases: 2 });
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 1, b: 1 })], continue: true }),
    answer({ steps: [step("s2", "add", { a: "{{s1.response.data.sum}}", b: 1 }, ["s1"])], continue: true }),
    { text: "done" },
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "count up" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["phases"], 2);
  assert.equal(
    tools.calls.map((c) => c.input),
    [
      { a: 1, b: 1 },
      { a: 2, b: 1 },
    ],
  );
  assert.match(userText(llm.requests[0]!.body), /add "continue": true/, "the first plan may ask for a further phase");
  assert.match(userText(llm.requests[1]!.body), /This is the last phase/);
  assert.not.match(userText(llm.requests[1]!.body), /add "continue": true/, "the last phase is not promised another");
  assert.is(llm.requests.length, 3, "no third plan was asked for");
});

loop("with one phase (ONE_SHOT) the model is never promised a further phase", async (context) => {
  await start(context, { maxPhases: 1 });
  const { llm } = context;
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 1 })] }), { text: "2." });
  const { body } = await context.agent.post("/orchestrate/natural", { request: "1 + 1" });
  assert.is(body["phases"], 1);
  assert.not.match(userText(llm.requests[0]!.body), /continue/, "no continue rule in a one-phase request's prompt");
  assert.match(userText(llm.requests[0]!.body), /clarification/, "asking the user is still offered");
});

loop("a continuation is checked like a first plan: its problems go back to the model; still invalid ends the loop with what exists", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 1, b: 1 })], continue: true }),
    // An unknown field of phase 1's output, then an invented component: never dispatched.
    answer({ steps: [step("s2", "echo", { v: "{{s1.response.data.total}}" }, ["s1"])] }),
    answer({ steps: [{ ...step("s2", "echo", {}), agent_name: "ghost" }] }),
    answer({ steps: [{ ...step("s2", "echo", {}), agent_name: "ghost" }] }),
    { text: "2." },
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "1 + 1 then echo" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add"],
    "nothing of the invalid continuation was dispatched",
  );
  assert.match(userText(llm.requests[2]!.body), /total/, "the problem (a field phase 1's output lacks) was sent back");
  assert.is(body["phases"], 1, "the answer is what phase 1 produced");
  assert.is(body["response"], "2.");
});

loop("steps skipped after a failure trigger remediation; the same capability failing again is the forced terminal", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "fail", {}), step("s2", "echo", { after: "{{s1.response.data.x}}" }, ["s1"])] }),
    answer({ steps: [step("s3", "fail", {}), step("s4", "echo", { after: "{{s3.response.data.x}}" }, ["s3"])] }),
    { text: "It could not be done." },
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "try it" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["phases"], 2);
  assert.match(userText(llm.requests[1]!.body), /Some steps failed or were skipped/);
  assert.match(userText(llm.requests[1]!.body), /s1 \(worker\.fail\) failed: \{"code":"HANDLER_ERROR"/, "the continuation sees the failure");
  const steps = body["steps"] as { step_id: string; status: string }[];
  assert.equal(
    steps.map((s) => [s.step_id, s.status]),
    [
      ["s1", "failed"],
      ["s2", "skipped"],
      ["s3", "failed"],
      ["s4", "skipped"],
    ],
    "every phase's steps are in the answer, in order",
  );
  assert.equal(
    llm.requests.map((r) => kindOf(r.body)),
    ["routing_plan", "routing_plan", "text"],
    "no third phase after worker.fail failed twice",
  );
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["fail", "fail"],
  );
});

loop("a lone step the tool refused (a skipped lookup) is remediated: the next phase does it another way", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(answer({ steps: [step("s1", "fail", {})] }), answer({ steps: [step("s2", "add", { a: 1, b: 2 })] }), { text: "3, by another way." });
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "get it done" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["phases"], 2);
  assert.equal(
    (body["plan"] as { phases: { reason: string }[] }).phases.map((p) => p.reason),
    ["request", "remediation"],
  );
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["fail", "add"],
  );
  // An outage is not replanned: a 503 with nothing depending on it ends the request with what exists.
  llm.reply(answer({ steps: [step("s1", "fail", { code: "UNAVAILABLE" })] }), { text: "down." });
  const outage = await context.agent.post("/orchestrate/natural", { request: "again" });
  assert.is(outage.body["phases"], 1);
  assert.equal(
    llm.requests.slice(3).map((r) => kindOf(r.body)),
    ["routing_plan", "text"],
  );
});

loop("a remediation plan that reuses a failed step's id, read by nobody, gets a fresh id: every step keeps its own", async (context) => {
  await start(context);
  const { llm } = context;
  llm.reply(answer({ steps: [step("look", "fail", {})] }), answer({ steps: [step("look", "add", { a: 1, b: 2 })] }), { text: "3." });
  const { body } = await context.agent.post("/orchestrate/natural", { request: "look it up" });
  assert.equal(
    (body["steps"] as { step_id: string; status: string }[]).map((s) => [s.step_id, s.status]),
    [
      ["look", "failed"],
      ["look_2", "completed"],
    ],
  );
});

loop("a continuation that adds no step ends the loop even if it says continue", async (context) => {
  await start(context, { maxPhases: 5 });
  const { llm } = context;
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 1 })], continue: true }), answer({ steps: [], continue: true }), { text: "2." });
  const { body } = await context.agent.post("/orchestrate/natural", { request: "1 + 1" });
  assert.is(body["phases"], 2);
  assert.equal(
    llm.requests.map((r) => kindOf(r.body)),
    ["routing_plan", "routing_plan", "text"],
  );
});

loop("a further phase's plan is governed by the after_planning hooks like the first", async (context) => {
  const seen: string[][] = [];
  context.agent = await serveAgent(agentSpec("phase-agent", { natural: true }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
    llm: context.provider,
    componentName: "phase-agent",
    adaptive: { maxSemanticRetries: 0 },
    hooks: [
      {
        name: "no_echo",
        phase: "after_planning",
        mode: "fail_closed",
        run: ({ plan }) => {
          seen.push(plan!.steps.map((s) => s.metadata.capability));
          if (plan!.steps.some((s) => s.metadata.capability === "echo")) throw new Error("echo is not allowed");
        },
      },
    ],
  });
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 1, b: 1 })], continue: true }),
    answer({ steps: [step("s2", "echo", { v: "{{s1.response.data.sum}}" }, ["s1"])] }),
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "add then echo" });
  assert.is(status, 500, JSON.stringify(body));
  assert.is((body["error"] as { code: string }).code, "HOOK_FAILED");
  assert.equal(seen, [["add"], ["add", "echo"]], "the hook saw phase 2's plan");
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add"],
    "the refused phase was never dispatched",
  );
});

loop("a step calling the agent itself and a self-dependency are repaired and reported, not sent back", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(
    answer({
      steps: [{ ...step("me", "ask", {}), agent_name: "phase-agent" }, step("s1", "add", { a: 2, b: 2 }, ["s1"])],
    }),
    { text: "4." },
  );
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "2 + 2" });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(
    (body["plan"] as { steps: { step_id: string; depends_on: string[] }[] }).steps.map((s) => [s.step_id, s.depends_on]),
    [["s1", []]],
  );
  assert.is(tools.calls.length, 1);
  assert.is(body["regenerations"] ?? 0, 0);
  assert.is(llm.requests.length, 2, "normalisation needed no regeneration");
});

loop("a clarification instead of a guess: 200 needs_input with the question, nothing dispatched, nothing synthesised", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(answer({ steps: [], clarification: { question: "Which city do you mean?", missing_fields: ["city"] } }));
  const { status, body } = await context.agent.post("/orchestrate/natural", { request: "book me a hotel" });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body["status"], "needs_input");
  assert.is(body["question"], "Which city do you mean?");
  assert.equal(body["missing_fields"], ["city"]);
  assert.equal(body["steps"], []);
  assert.is(tools.calls.length, 0);
  assert.is(llm.requests.length, 1, "no synthesis was asked for");
});

loop("a clarification in phase 2 keeps phase 1's completed steps and stops there", async (context) => {
  await start(context);
  const { llm, tools } = context;
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 5, b: 5 })], continue: true }),
    answer({ clarification: { question: "Should I charge 10 to the card ending 42?", missing_fields: ["confirmation"] } }),
  );
  const { body } = await context.agent.post("/orchestrate/natural", { request: "sum and charge" });
  assert.is(body["status"], "needs_input");
  assert.is(body["phases"], 2);
  assert.equal(
    (body["steps"] as { step_id: string; status: string }[]).map((s) => [s.step_id, s.status]),
    [["s1", "completed"]],
  );
  assert.is(tools.calls.length, 1);
});

loop("a malformed clarification is a problem sent back like any other", async (context) => {
  await start(context);
  const { llm } = context;
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 1 })], clarification: { question: "" } }), answer({ steps: [step("s1", "add", { a: 1, b: 1 })] }), {
    text: "2",
  });
  const { body } = await context.agent.post("/orchestrate/natural", { request: "1 + 1" });
  assert.is(body["status"], "completed");
  assert.match(userText(llm.requests[1]!.body), /clarification\/question/);
});

loop.run();
