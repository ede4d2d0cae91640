/**
 * A typed `chat` handler that runs one of the agent's workflows (`ctx.runWorkflow`): on the AI SDK
 * stream, each of the workflow's steps is a tool part carrying what the step was called with and what
 * it returned, read by the `ai` package's own transport and `readUIMessageStream` from a real agent.
 */
import type { DynamicToolUIPart } from "ai";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { ChatHandler } from "../../runtime/chat/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { double } from "../mcp/agent-support.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";
import { sendChat, userMessage } from "./ai-sdk-support.js";

for (const name of ["REDIS_URL", "OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL"]) delete process.env[name];

const test = suite<{ tools: Tools; agent: RunningComponent }>("chat: a typed handler's workflow steps on the AI SDK stream", {} as never);

// Doubles the number in the message through the agent's `double` workflow, and says the result.
const chat: ChatHandler = async function* (input, ctx) {
  const outputs = await ctx.runWorkflow("double", { a: Number(input.message) });
  yield `Doubled: ${String(outputs["doubled"])}`;
};

test.before(async (context) => {
  context.tools = await startTools();
  const base = agentSpec("handler-chat", { workflows: [double] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, chat: true as const } };
  context.agent = (await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    chat,
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false },
  } as never)) as RunningComponent;
});
test.after(async ({ agent, tools }) => {
  await agent.close();
  await tools.close();
});

test("the workflow's step is a tool part with the parameters it was called with and its output", async ({ agent }) => {
  const turn = await sendChat(agent.url, "handler-chat-1", [userMessage("u1", "21")]);
  assert.equal(turn.errors, []);
  const tools = (turn.message?.parts ?? []).filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
  assert.is(tools.length, 1, JSON.stringify(turn.chunks));
  assert.is(tools[0]!.toolCallId, "sum");
  assert.is(tools[0]!.toolName, "worker.add");
  assert.is(tools[0]!.state, "output-available");
  assert.equal(tools[0]!.input, { a: 21, b: 21 });
  assert.equal(tools[0]!.output, { sum: 42 });
  assert.equal((turn.message!.metadata as { tools_used: string[] }).tools_used, ["worker"]);
});

test.run();
