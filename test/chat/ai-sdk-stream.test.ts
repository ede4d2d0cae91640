/**
 * `POST /chat/stream` in the AI SDK's UI message stream protocol (DESIGN §5.4), read by the `ai`
 * package's own client (`DefaultChatTransport`, `readUIMessageStream`, `parseJsonEventStream`) from a
 * real served agent in natural mode with a scripted model: text deltas assemble to the answer, each
 * plan step is a tool part with its input and output, a failed turn is an `error` chunk, the same
 * `id` continues the same session, a sensitive step is a tool part awaiting approval that
 * `/hitl/command` answers, and the spec's events stay the default.
 */
import { parseJsonEventStream, uiMessageChunkSchema, type DynamicToolUIPart, type UIMessageChunk } from "ai";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { planStep, planText } from "../orchestration/support.js";
import { postSse } from "../support/sse-client.js";
import { startChatAgent, sendChat, userMessage, type ChatAgent } from "./ai-sdk-support.js";

for (const name of ["REDIS_URL", "OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL"]) delete process.env[name];
// X-User-ID names the user behind a trusted gateway: two users of one chat id.
process.env["MANIFOLD_TRUST_IDENTITY_HEADERS"] = "true";

const test = suite<{ agent: ChatAgent }>("chat: the AI SDK UI message stream", {} as never);
test.before(async (context) => {
  context.agent = await startChatAgent();
});
test.after(async ({ agent }) => {
  await agent.close();
});

const ADD = planText([planStep("sum", "worker", "add", { a: 2, b: 3 })]);
const chatId = (): string => `chat-${Math.random().toString(36).slice(2, 10)}`;
const toolParts = (parts: readonly { type: string }[] | undefined): DynamicToolUIPart[] =>
  (parts ?? []).filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
const textOf = (parts: readonly { type: string; text?: string }[] | undefined): string =>
  (parts ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("");

test("useChat's request: text deltas assemble to the answer, the plan step is a tool part with input and output, the stored reply is that message", async ({
  agent,
}) => {
  agent.llm.reply({ text: ADD }, { text: "Two and three make five.", chunks: 4 });
  const turn = await sendChat(agent.running.url, chatId(), [userMessage("u1", "add 2 and 3")]);
  assert.is(turn.headers.get("x-vercel-ai-ui-message-stream"), "v1");
  assert.equal(turn.errors, []);
  assert.is(turn.chunks[0]!.type, "start");
  assert.is(turn.chunks.at(-1)!.type, "finish");
  assert.ok(turn.chunks.filter((c) => c.type === "text-delta").length >= 2, "the synthesis streamed in pieces");
  assert.is(textOf(turn.message?.parts), "Two and three make five.");
  const [tool, ...more] = toolParts(turn.message?.parts);
  assert.equal(more, []);
  assert.is(tool!.toolCallId, "sum");
  assert.is(tool!.toolName, "worker.add");
  assert.is(tool!.state, "output-available");
  assert.equal(tool!.input, { a: 2, b: 3 });
  assert.equal(tool!.output, { sum: 5 });
  // The tool part comes before the answer's text, as the step ran before the synthesis.
  assert.equal(
    turn.message!.parts.map((p) => p.type).filter((t) => t !== "step-start"),
    ["dynamic-tool", "text"],
  );

  const sessionId = (turn.message!.metadata as { session_id: string }).session_id;
  const history = (await (await fetch(`${agent.running.url}/chat/session/${sessionId}/history`)).json()) as any;
  assert.equal(
    history.messages.map((m: any) => [m.role, m.content]),
    [
      ["user", "add 2 and 3"],
      ["assistant", "Two and three make five."],
    ],
  );
  assert.is(history.messages[1].id, turn.message!.id, "the message id useChat holds is the stored reply's");
  assert.equal((turn.message!.metadata as any).tools_used, ["worker"]);
});

test("the same chat id continues the same session: the next turn's plan request carries the earlier turn", async ({ agent }) => {
  const id = chatId();
  agent.llm.reply({ text: ADD }, { text: "Five." });
  const alice = { headers: { "x-user-id": "alice" } };
  const first = await sendChat(agent.running.url, id, [userMessage("u1", "add 2 and 3")], alice);
  agent.llm.reply({ text: planText([planStep("again", "worker", "add", { a: 5, b: 1 })]) }, { text: "Six." });
  const asked = agent.llm.requests.length;
  const second = await sendChat(agent.running.url, id, [userMessage("u1", "add 2 and 3"), first.message!, userMessage("u2", "and one more?")], alice);
  const session = (m: typeof first) => (m.message!.metadata as { session_id: string; created: boolean }).session_id;
  assert.is(session(second), session(first));
  assert.is((second.message!.metadata as { created: boolean }).created, false);
  const planPrompt = JSON.stringify(agent.llm.requests[asked]!.body.messages);
  assert.match(planPrompt, /Earlier in this conversation/);
  assert.match(planPrompt, /add 2 and 3/);
  assert.match(planPrompt, /and one more\?/);
  // Another caller using the same chat id gets a session of its own.
  agent.llm.reply({ text: ADD }, { text: "Five." });
  const bob = await sendChat(agent.running.url, id, [userMessage("u1", "add 2 and 3")], { headers: { "x-user-id": "bob" } });
  assert.is.not(session(bob), session(first));
  assert.is((bob.message!.metadata as { created: boolean }).created, true);
});

test("a turn that fails after the headers is an error chunk (code and message, no stack), then finish", async ({ agent }) => {
  agent.llm.reply({ status: 500, body: { error: { message: "the model is down" } } });
  const turn = await sendChat(agent.running.url, chatId(), [userMessage("u1", "add 2 and 3")]);
  const errors = turn.chunks.filter((c): c is Extract<UIMessageChunk, { type: "error" }> => c.type === "error");
  assert.is(errors.length, 1);
  assert.match(errors[0]!.errorText, /^LLM_\w+: /);
  assert.not.match(errors[0]!.errorText, /\bat .+\.(ts|js):\d+/);
  assert.equal(turn.errors, [errors[0]!.errorText], "readUIMessageStream reports it");
  assert.equal(turn.chunks.at(-1), { type: "finish", finishReason: "error" });
});

test("a sensitive step: a tool part awaiting approval whose approval id is the checkpoint; /hitl/command approves it and the resumed answer joins the session", async ({
  agent,
}) => {
  agent.llm.reply({ text: planText([planStep("pay", "worker", "echo", { amount: 42, tag: "charge" })]) });
  const turn = await sendChat(agent.running.url, chatId(), [userMessage("u1", "pay 42")]);
  const [tool] = toolParts(turn.message?.parts);
  assert.is(tool!.toolCallId, "pay");
  assert.is(tool!.toolName, "worker.echo");
  assert.is(tool!.state, "approval-requested");
  assert.equal(tool!.input, { amount: 42, tag: "charge" });
  const checkpointId = (tool as { approval?: { id: string } }).approval!.id;
  assert.match(checkpointId, /^cp-/);
  const data = turn.message!.parts.find((p) => p.type === "data-checkpoint") as { data: { checkpoint_id: string; session_id: string } } | undefined;
  assert.is(data?.data.checkpoint_id, checkpointId);
  assert.equal(turn.chunks.at(-1), {
    type: "finish",
    finishReason: "tool-calls",
    messageMetadata: { session_id: data!.data.session_id, status: "interrupted", checkpoint_id: checkpointId },
  });
  assert.equal(
    agent.tools.calls.filter((c) => c.capability === "echo"),
    [],
    "not dispatched before approval",
  );

  const approve = await fetch(`${agent.running.url}/hitl/command`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ checkpoint_id: checkpointId, action: "approve" }),
  });
  assert.is(approve.status, 200);
  agent.llm.reply({ text: "Paid 42." });
  const resumed = await postSse(`${agent.running.url}/hitl/auto-resume/${checkpointId}/stream`, undefined);
  assert.is(resumed.events.at(-1)!.event, "done", JSON.stringify(resumed.events));
  assert.is(resumed.events.at(-1)!.data.response, "Paid 42.");
  const history = (await (await fetch(`${agent.running.url}/chat/session/${data!.data.session_id}/history`)).json()) as any;
  assert.equal(
    history.messages.map((m: any) => [m.role, m.content]),
    [
      ["user", "pay 42"],
      ["assistant", "Paid 42."],
    ],
  );
});

test("a {message} body still gets the spec's events; ?protocol=ai-sdk selects the AI SDK stream for it too", async ({ agent }) => {
  agent.llm.reply({ text: ADD }, { text: "Five." });
  const spec = await postSse(`${agent.running.url}/chat/stream`, { message: "add 2 and 3" });
  assert.equal(
    spec.events.map((e) => e.event),
    ["session", "status", "step", "chunk", "chunk", "chunk", "done"],
  );
  assert.equal(Object.keys(spec.events[2]!.data).sort(), ["capability", "duration_ms", "status", "step_id", "tool"], "the spec's step event is as before");

  agent.llm.reply({ text: ADD }, { text: "Five." });
  const response = await fetch(`${agent.running.url}/chat/stream?protocol=ai-sdk`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "add 2 and 3", session_id: spec.events[0]!.data.session_id }),
  });
  assert.is(response.headers.get("x-vercel-ai-ui-message-stream"), "v1");
  const chunks: UIMessageChunk[] = [];
  for await (const parsed of parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema })) {
    assert.ok(parsed.success, "every frame is a valid chunk");
    if (parsed.success) chunks.push(parsed.value);
  }
  assert.equal(chunks[0], {
    type: "start",
    messageId: (chunks[0] as { messageId: string }).messageId,
    messageMetadata: { session_id: spec.events[0]!.data.session_id, created: false },
  });
  assert.ok(chunks.some((c) => c.type === "tool-output-available"));
  assert.is(chunks.at(-1)!.type, "finish");
});

test("a useChat body without a user message is refused before the stream, with a pointer", async ({ agent }) => {
  const response = await fetch(`${agent.running.url}/chat/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: "c1", messages: [{ id: "a1", role: "assistant", parts: [{ type: "text", text: "hi" }] }], trigger: "submit-message" }),
  });
  assert.is(response.status, 400);
  const body = (await response.json()) as any;
  assert.is(body.error.code, "INVALID_INPUT");
  assert.is(body.error.details[0].pointer, "/messages");
});

test.run();
