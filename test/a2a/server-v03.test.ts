/**
 * A2A v0.3 clients on the same `POST /a2a` (issue 30: `message/send`, `message/stream`, `tasks/get`,
 * `tasks/cancel`): a request without `A2A-Version` (or with `0.3`) goes through the SDK's v0.3 layer
 * onto the same tasks and executor. Raw v0.3 JSON-RPC and the SDK's own v0.3 client transport.
 */
import { randomUUID } from "node:crypto";
import type { Message, Task } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { double } from "../mcp/agent-support.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { nap } from "./workflows.js";
import { QUIET_AGENT } from "../support/serve.js";
import { eventually } from "../support/wait.js";

for (const name of ["REDIS_URL", "MANIFOLD_A2A_ENABLED"]) delete process.env[name];
const TOKEN = "v03-token";

const test = suite<{ tools: Tools; agent: RunningComponent }>("an agent's A2A server, v0.3", {} as never);
test.before(async (context) => {
  context.tools = await startTools();
  const base = agentSpec("v03-agent", { workflows: [double, nap] });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, a2a: true } };
  context.agent = (await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    auth: { verify: (token: string) => (token === TOKEN ? "alice" : false) },
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false },
  } as never)) as RunningComponent;
});
test.after(async ({ agent, tools }) => {
  await agent.close();
  await tools.close();
});

const authed: typeof fetch = (input, init) =>
  fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${TOKEN}` } });

async function rpc(agent: RunningComponent, method: string, params: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await authed(`${agent.url}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 11, method, params }),
  });
  return response.json();
}

const v03Message = (parts: unknown[], metadata?: Record<string, unknown>) => ({ kind: "message", messageId: randomUUID(), role: "user", parts, metadata });

test("raw v0.3 JSON-RPC, no version header: message/send runs the skill, tasks/get finds the task, in v0.3 shapes", async ({ agent }) => {
  const sent = await rpc(agent, "message/send", { message: v03Message([{ kind: "data", data: { a: 21 } }], { skill: "double" }) });
  assert.is(sent.id, 11);
  const task = sent.result;
  assert.is(task?.kind, "task", JSON.stringify(sent));
  assert.is(task.status.state, "completed");
  const data = task.artifacts[0].parts.find((p: any) => p.kind === "data");
  assert.equal(data.data.outputs, { doubled: 42 });
  const got = await rpc(agent, "tasks/get", { id: task.id }, { "a2a-version": "0.3" });
  assert.is(got.result.id, task.id);
  assert.is(got.result.status.state, "completed");
  // The v1.0 names still need their header, and a v1.0 client reads the same task.
  const v1 = await rpc(agent, "GetTask", { id: task.id }, { "a2a-version": "1.0" });
  assert.is(v1.result.id, task.id);
});

test("a v0.3 error is a JSON-RPC error without a stack: an unknown task, an unknown method", async ({ agent }) => {
  const missing = await rpc(agent, "tasks/get", { id: "missing" });
  assert.type(missing.error.code, "number");
  assert.not.match(JSON.stringify(missing), /at .*\.js/);
  const unknown = await rpc(agent, "SendMessage", {});
  assert.type(unknown.error.code, "number");
});

test("the SDK's v0.3 client transport: sendMessage, sendMessageStream, cancelTask", async ({ agent, tools }) => {
  const client = new LegacyJsonRpcTransport({ endpoint: `${agent.url}/a2a`, fetchImpl: authed });
  const message = (parts: Message["parts"], metadata: Record<string, unknown>): Message => ({
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: 1,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  });
  const data = (value: unknown): Message["parts"][number] => ({
    content: { $case: "data", value },
    metadata: undefined,
    filename: "",
    mediaType: "application/json",
  });
  const send = (m: Message) => ({ tenant: "", message: m, configuration: undefined, metadata: undefined });

  const done = (await client.sendMessage(send(message([data({ a: 4 })], { skill: "double" })))) as Task;
  assert.is(done.status?.state, 3, JSON.stringify(done));

  const kinds: string[] = [];
  for await (const event of client.sendMessageStream(send(message([data({ a: 2 })], { skill: "double" })))) kinds.push((event as any).payload.$case);
  assert.equal(kinds, ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);

  const stream = client.sendMessageStream(send(message([data({ ms: 30_000 })], { skill: "nap" })));
  const first = await stream.next();
  const taskId = (first.value as any).payload.value.id as string;
  await eventually("the sleep step running", () => tools.calls.some((c) => c.capability === "sleep" && c.end === undefined));
  const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
  assert.is(canceled.status?.state, 5);
  await eventually("the sleep step aborted", () => tools.calls.find((c) => c.capability === "sleep")?.aborted);
  await stream.return(undefined);
});

test.run();
