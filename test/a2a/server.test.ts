/**
 * An agent's A2A server (issue 30, item 1) driven by the official SDK's client (`ClientFactory`, JSON-RPC
 * transport) over HTTP, against an agent served with the real feature list (`a2a: true`, HITL on),
 * real tools on loopback and a scripted model behind the real `openai` client.
 */
import { randomUUID } from "node:crypto";
import { AgentCard as AgentCardJson, type AgentCard, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { SENSITIVE_ECHO } from "../hitl/support.js";
import { double } from "../mcp/agent-support.js";
import { agentSpec, planStep, planText, startTools, workflowStep, type Tools } from "../orchestration/support.js";
import { nap } from "./workflows.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { eventually } from "../support/wait.js";

const TOKEN = "a2a-test-token";
const OTHER = "a2a-other-token";

const pay: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  description: "Charges an amount (a human approves)",
  inputs: [{ name: "a", type: "number", required: true, example: 5 }],
  steps: [workflowStep("charge", "echo", { amount: "${inputs.a}", tag: "charge" })],
  outputs: [{ name: "charged", value: "${steps.charge.output.amount}", type: { type: "number" }, required: true }],
};

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  agent: RunningComponent;
  client: Client;
}

const test = suite<Context>("an agent's A2A server", {} as Context);

const authed: typeof fetch = (input, init) =>
  fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${TOKEN}` } });

test.before(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  const base = agentSpec("a2a-agent", { natural: true, workflows: [double, pay, nap] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: SENSITIVE_ECHO, a2a: true } };
  const llm = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm,
    auth: { verify: (token: string) => (token === TOKEN ? "alice" : token === OTHER ? "bob" : false) },
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
  } as never);
  const factory = new ClientFactory({
    ...ClientFactoryOptions.default,
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
  });
  context.client = await factory.createFromUrl(context.agent.url);
});

test.after(async ({ agent, tools, llm }) => {
  await agent.close();
  await tools.close();
  await llm.close();
});

const userMessage = (parts: Part[], metadata?: Record<string, unknown>, taskId = ""): Message => ({
  messageId: randomUUID(),
  contextId: "",
  taskId,
  role: 1,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});
const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });
const send = (message: Message) => ({ tenant: "", message, configuration: undefined, metadata: undefined });

function asTask(result: unknown): Task {
  const task = result as Task;
  assert.type(task.id, "string", `a task, got ${JSON.stringify(result)}`);
  return task;
}
const partsOf = (task: Task) => task.artifacts[0]?.parts ?? [];
const dataOf = (task: Task) => partsOf(task).find((p) => p.content?.$case === "data")?.content?.value;
const textOf = (task: Task) => partsOf(task).find((p) => p.content?.$case === "text")?.content?.value;

test("the card: fetched and parsed by the SDK, typed as its AgentCard, with a skill per workflow and natural mode, bearer security", async ({ agent }) => {
  const response = await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.is(response.status, 200);
  const card: AgentCard = AgentCardJson.fromJSON(await response.json());
  assert.is(card.name, "a2a-agent");
  assert.is(card.version, "1.0.0");
  assert.is(card.supportedInterfaces[0]?.url, `${agent.url}/a2a`);
  assert.is(card.supportedInterfaces[0]?.protocolBinding, "JSONRPC");
  assert.equal(
    card.supportedInterfaces.map((i) => [i.url, i.protocolVersion]),
    [
      [`${agent.url}/a2a`, "1.0"],
      [`${agent.url}/a2a`, "0.3"],
    ],
    "one endpoint, both protocol versions (v0.3 through the SDK's legacy handler)",
  );
  assert.is(card.capabilities?.streaming, true);
  assert.equal(
    card.skills.map((s) => s.id),
    ["double", "pay", "nap", "natural"],
  );
  assert.equal(card.skills.find((s) => s.id === "pay")?.examples, ['{"a":5}']);
  assert.is(card.securitySchemes["bearer"]?.scheme?.$case, "httpAuthSecurityScheme");
  assert.equal(Object.keys(card.securityRequirements[0]?.schemes ?? {}), ["bearer"]);
});

test("refused without the bearer token: the card and /a2a answer 401", async ({ agent }) => {
  assert.is((await fetch(`${agent.url}/.well-known/agent-card.json`)).status, 401);
  const rpc = await fetch(`${agent.url}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.is(rpc.status, 401);
});

test("SendMessage with text runs natural mode: a completed task whose artifact carries the answer's data and text", async ({ client, llm }) => {
  llm.reply({ text: planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]) }, { text: "It is 42." });
  const task = asTask(await client.sendMessage(send(userMessage([text("what is 20 + 22?")]))));
  assert.is(task.status?.state, 3, JSON.stringify(task.status));
  assert.is(textOf(task), "It is 42.");
  assert.equal((dataOf(task) as any).steps[0].output, { sum: 42 });
});

test("a workflow skill: the data part is its input, the artifact's data its typed outputs", async ({ client }) => {
  const task = asTask(await client.sendMessage(send(userMessage([data({ a: 21 })], { skill: "double" }))));
  assert.is(task.status?.state, 3, JSON.stringify(task.status));
  assert.equal((dataOf(task) as any).outputs, { doubled: 42 });
  const bad = asTask(await client.sendMessage(send(userMessage([data({ a: "x" })], { skill: "double" }))));
  assert.is(bad.status?.state, 4);
  assert.is(bad.status?.message?.metadata?.["error"]?.code, "INVALID_INPUT");
});

test("SendStreamingMessage: the task, working, the artifact, then completed", async ({ client }) => {
  const kinds: string[] = [];
  const states: number[] = [];
  for await (const event of client.sendMessageStream(send(userMessage([data({ a: 2 })], { skill: "double" })))) {
    const payload = (event as any).payload;
    kinds.push(payload.$case);
    if (payload.$case === "statusUpdate") states.push(payload.value.status.state);
  }
  assert.equal(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
  assert.equal(states, [2, 3]);
});

test("CancelTask stops a running task: canceled, and GetTask says so", async ({ client, tools }) => {
  const stream = client.sendMessageStream(send(userMessage([data({ ms: 30_000 })], { skill: "nap" })));
  const first = await stream.next();
  const taskId = (first.value as any).payload.value.id as string;
  await eventually("the sleep step running", () => tools.calls.some((c) => c.capability === "sleep" && c.end === undefined));
  const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
  assert.is(canceled.status?.state, 5);
  await eventually("the sleep step aborted", () => tools.calls.find((c) => c.capability === "sleep")?.aborted);
  assert.is((await client.getTask({ tenant: "", id: taskId, historyLength: undefined })).status?.state, 5);
  await stream.return(undefined);
});

test("a sensitive step: input-required with the checkpoint id; approved by a message on the task, it completes", async ({ client, tools }) => {
  const paused = asTask(await client.sendMessage(send(userMessage([data({ a: 7 })], { skill: "pay" }))));
  assert.is(paused.status?.state, 6, JSON.stringify(paused.status));
  const checkpoint = paused.status?.message?.metadata?.["checkpoint_id"];
  assert.match(String(checkpoint), /^cp-/);
  assert.not.ok(tools.calls.some((c) => c.capability === "echo"));
  const done = asTask(await client.sendMessage(send({ ...userMessage([data({ action: "approve" })], undefined, paused.id), contextId: paused.contextId })));
  assert.is(done.status?.state, 3, JSON.stringify(done.status));
  assert.equal((dataOf(done) as any).outputs, { charged: 7 });
});

test("a task is its creator's: another caller's GetTask and CancelTask find nothing", async ({ client, agent }) => {
  const task = asTask(await client.sendMessage(send(userMessage([data({ a: 1 })], { skill: "double" }))));
  const rpc = async (method: string, params: unknown) =>
    (await (
      await fetch(`${agent.url}/a2a`, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${OTHER}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
      })
    ).json()) as any;
  for (const method of ["GetTask", "CancelTask"]) {
    const answer = await rpc(method, { id: task.id });
    assert.is(answer.result, undefined, `${method}: ${JSON.stringify(answer)}`);
    assert.type(answer.error.code, "number");
  }
  assert.is((await client.getTask({ tenant: "", id: task.id, historyLength: undefined })).status?.state, 3);
});

test("bad requests are JSON-RPC errors without a stack: an unknown method, a body that is not JSON", async ({ agent }) => {
  const post = async (body: string) =>
    fetch(`${agent.url}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${TOKEN}` },
      body,
    });
  const unknown = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "NoSuchMethod", params: {} }));
  const body = (await unknown.json()) as any;
  assert.is(body.id, 1);
  assert.type(body.error.code, "number");
  assert.not.match(JSON.stringify(body), /at .*\.js/);
  const garbled = (await (await post("{nope")).json()) as any;
  assert.is(garbled.error.code, -32700);
  const unknownTask = (await (await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "missing" } }))).json()) as any;
  assert.type(unknownTask.error.code, "number");
  assert.not.match(JSON.stringify(unknownTask), /at .*\.js/);
});

test.run();
