/**
 * The phase loop inside a served agent, with the real `openai` client against a scripted server:
 * a clarification answered on the next chat turn (the question is the assistant's message, so the
 * next plan sees it and the user's answer), progress events for further phases, and a sensitive step
 * that only phase 2 reaches still pausing for approval; the approved run resumes and goes on with its
 * phase loop.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { startScriptedLlm, type ScriptedEntry, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { postSse } from "../support/sse-client.js";
import { SENSITIVE_ECHO } from "../hitl/support.js";
import { agentSpec, startTools, type Tools, planStep } from "./support.js";

const step = (step_id: string, cap: string, parameters: Record<string, unknown>, depends_on: string[] = []) =>
  planStep(step_id, "worker", cap, parameters, depends_on);
const answer = (value: unknown): ScriptedEntry => ({ text: JSON.stringify(value) });
const userText = (body: any): string => body.messages.map((m: { content: string }) => m.content).join("\n");

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  running: RunningComponent;
}

const agent = suite<Context>("phase loop in an agent");

agent.before.each(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const provider = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  const base = agentSpec("phase-hitl", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: SENSITIVE_ECHO, chat: true as const } };
  context.running = await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm: provider,
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false, adaptive: { maxSemanticRetries: 0 } },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
});

agent.after.each(async ({ tools, llm, running }) => {
  await running.close();
  await tools.close();
  await llm.close();
});

async function post(running: RunningComponent, path: string, body: unknown = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(running.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

agent("a clarification is the chat's answer; the user's reply on the next turn continues the conversation", async ({ running, llm, tools }) => {
  llm.reply(answer({ steps: [], clarification: { question: "Which two numbers should I add?", missing_fields: ["a", "b"] } }));
  const first = await postSse(`${running.url}/chat/stream`, { message: "add my numbers" });
  assert.is(first.status, 200);
  const clarification = first.events.find((e) => e.event === "clarification");
  assert.equal(clarification?.data, { question: "Which two numbers should I add?", missing_fields: ["a", "b"] });
  const done = first.events.find((e) => e.event === "done")!.data;
  assert.is(done.message.content, "Which two numbers should I add?");
  assert.is(done.message.metadata.status, "needs_input");
  assert.is(tools.calls.length, 0, "nothing was dispatched on a guess");
  assert.is(llm.requests.length, 1, "no synthesis for a question");

  llm.reply(answer({ steps: [step("s1", "add", { a: 4, b: 5 })] }), { text: "4 + 5 = 9." });
  const second = await postSse(`${running.url}/chat/stream`, { message: "4 and 5", session_id: done.session_id });
  const reply = second.events.find((e) => e.event === "done")!.data;
  assert.is(reply.message.content, "4 + 5 = 9.");
  const planned = userText(llm.requests[1]!.body);
  assert.match(planned, /Which two numbers should I add\?/, "the next plan sees the question it asked");
  assert.match(planned, /4 and 5/);
  assert.equal(tools.calls[0]?.input, { a: 4, b: 5 });
});

agent("a chat stream shows a further phase as a progress event", async ({ running, llm }) => {
  llm.reply(answer({ steps: [step("s1", "add", { a: 1, b: 1 })], continue: true }), answer({ steps: [] }), { text: "2." });
  const turn = await postSse(`${running.url}/chat/stream`, { message: "1 + 1" });
  const progress = turn.events.filter((e) => e.event === "progress").map((e) => e.data);
  assert.equal(progress, [{ kind: "phase", phase: 2, reason: "continue" }]);
});

agent("a sensitive step only phase 2 reaches still pauses; the approved run resumes and continues its phase loop", async ({ running, llm, tools }) => {
  llm.reply(
    answer({ steps: [step("s1", "add", { a: 20, b: 22 })], continue: true }),
    answer({ steps: [step("pay", "echo", { amount: "{{s1.response.data.sum}}", tag: "charge" }, ["s1"])], continue: true }),
  );
  const paused = await post(running, "/orchestrate/natural", { request: "sum then pay the total" });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  assert.is(paused.body.checkpoint.current_step.step_id, "pay");
  assert.equal(paused.body.checkpoint.resolved_parameters, { amount: 42, tag: "charge" });
  assert.equal(
    tools.calls.map((c) => c.capability),
    ["add"],
    "the sensitive step was not dispatched",
  );

  assert.is((await post(running, "/hitl/command", { checkpoint_id: paused.body.checkpoint_id, action: "approve" })).status, 200);
  // The resumed run: pay runs, then phase 3 is planned (pay asked to continue) from every result so far.
  llm.reply(answer({ steps: [step("s3", "add", { a: "{{pay.response.data.amount}}", b: 1 }, ["pay"])] }), { text: "Paid 42; 43 next." });
  const resumed = await post(running, `/hitl/resume/${paused.body.checkpoint_id}`);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.is(resumed.body.phases, 3);
  assert.is(resumed.body.response, "Paid 42; 43 next.");
  assert.equal(
    tools.calls.map((c) => [c.capability, c.input]),
    [
      ["add", { a: 20, b: 22 }],
      ["echo", { amount: 42, tag: "charge" }],
      ["add", { a: 42, b: 1 }],
    ],
    "phase 1 was not run again; the approved step ran once",
  );
  assert.match(userText(llm.requests[2]!.body), /phase 3 of at most 3/);
});

agent.run();
