/**
 * A2A natural mode on an agent with chat (issue 30): a message runs as a turn of the chat session its
 * `contextId` stands for, for its caller, so the next message in that context sees the first turn; and
 * SendStreamingMessage tells each finished plan step as a `working` status naming it. The SDK's client
 * against a served agent (`a2a`, `chat`, natural mode) with a scripted model behind the real `openai` client.
 */
import { randomUUID } from "node:crypto";
import type { Message, Part, Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { agentSpec, planStep, planText, startTools, type Tools } from "../orchestration/support.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";

for (const name of ["REDIS_URL", "OPENAI_API_KEY", "MANIFOLD_LLM_API_KEY", "MANIFOLD_LLM_BASE_URL", "MANIFOLD_A2A_ENABLED"]) delete process.env[name];
const TOKENS: Record<string, string> = { "alice-token": "alice", "bob-token": "bob" };

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  agent: RunningComponent;
  alice: Client;
  bob: Client;
}
const test = suite<Context>("A2A on a chat agent: contextId is the chat session, steps stream", {} as Context);

async function clientFor(url: string, token: string): Promise<Client> {
  const authed: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${token}` } });
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
  });
  return factory.createFromUrl(url);
}

test.before(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const base = agentSpec("a2a-chat", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, a2a: true, chat: true as const } };
  const llm = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = (await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm,
    auth: { verify: (token: string) => TOKENS[token] ?? false },
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false, adaptive: { maxSemanticRetries: 0 } },
  } as never)) as RunningComponent;
  context.alice = await clientFor(context.agent.url, "alice-token");
  context.bob = await clientFor(context.agent.url, "bob-token");
});
test.after(async ({ agent, tools, llm }) => {
  await agent.close();
  await tools.close();
  await llm.close();
});

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const message = (value: string, contextId = ""): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId: "",
  role: 1,
  parts: [text(value)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const send = (m: Message) => ({ tenant: "", message: m, configuration: undefined, metadata: undefined });
const answerOf = (task: Task) => task.artifacts[0]?.parts.find((p) => p.content?.$case === "text")?.content?.value;
const ADD = planText([planStep("sum", "worker", "add", { a: 2, b: 3 })]);

test("a second message in the same context sees the first turn; another caller's message in that context does not", async ({ alice, bob, llm }) => {
  llm.reply({ text: ADD }, { text: "Five." });
  const first = (await alice.sendMessage(send(message("add 2 and 3")))) as Task;
  assert.is(first.status?.state, 3, JSON.stringify(first.status));
  assert.is(answerOf(first), "Five.");

  llm.reply({ text: planText([planStep("more", "worker", "add", { a: 5, b: 1 })]) }, { text: "Six." });
  let asked = llm.requests.length;
  const second = (await alice.sendMessage(send(message("and one more?", first.contextId)))) as Task;
  assert.is(second.status?.state, 3, JSON.stringify(second.status));
  assert.is(second.contextId, first.contextId);
  const planPrompt = JSON.stringify(llm.requests[asked]!.body.messages);
  assert.match(planPrompt, /Earlier in this conversation/);
  assert.match(planPrompt, /add 2 and 3/);
  assert.match(planPrompt, /Five\./);

  llm.reply({ text: ADD }, { text: "Five." });
  asked = llm.requests.length;
  const other = (await bob.sendMessage(send(message("hello", first.contextId)))) as Task;
  assert.is(other.status?.state, 3, JSON.stringify(other.status));
  assert.not.match(JSON.stringify(llm.requests[asked]!.body.messages), /add 2 and 3/);
});

test("SendStreamingMessage: a working status per finished plan step, naming the step and its capability, before the answer", async ({ alice, llm }) => {
  llm.reply({ text: planText([planStep("sum", "worker", "add", { a: 2, b: 3 }), planStep("again", "worker", "add", { a: 1, b: 1 })]) }, { text: "Done." });
  const seen: string[] = [];
  for await (const event of alice.sendMessageStream(send(message("add twice")))) {
    const { $case, value } = (event as any).payload;
    if ($case !== "statusUpdate") seen.push($case);
    else seen.push(`${value.status.state}:${value.status.message?.metadata?.step_id ?? ""}:${value.status.message?.metadata?.capability ?? ""}`);
  }
  assert.equal(seen.filter((s) => s.startsWith("2:") && s !== "2::").sort(), ["2:again:worker.add", "2:sum:worker.add"]);
  assert.equal(seen.slice(-2), ["artifactUpdate", "3::"]);
  assert.is(seen[0], "task");
});

test.run();
