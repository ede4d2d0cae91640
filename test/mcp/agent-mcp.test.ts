/**
 * An agent's own MCP tools over `/mcp` (issue 34), driven by the official SDK's `Client` over
 * `StreamableHTTPClientTransport` against an agent served with the real feature list (HITL on, tasks
 * on the embedded backend), real tools on loopback and a scripted model behind the real `openai`
 * client: `ask` answers through natural mode; a workflow tool is typed by the workflow's inputs and
 * refuses a bad argument with the route's pointer; a sensitive step answers "approval pending" with
 * the checkpoint id, and approving over HTTP then resuming runs it; a task started with `start_task`
 * is followed to its result with `task_status`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import { createLlmProvider, resolveLlmConfig } from "../../runtime/llm/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { createMemoryTaskBackend, type TaskBackend } from "../../runtime/tasks/index.js";
import { SENSITIVE_ECHO } from "../hitl/support.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { QUIET_AGENT } from "../support/serve.js";
import { eventually } from "../support/wait.js";
import { agentSpec, planStep, planText, startTools, workflowStep, type Tools } from "../orchestration/support.js";
import { double } from "./agent-support.js";
import { silentLogger } from "../tasks/support.js";

/** `pay {a}` → `{charged}`, through the sensitive `echo` (SENSITIVE_ECHO). */
const pay: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  description: "Charges an amount (a human approves)",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("charge", "echo", { amount: "${inputs.a}", tag: "charge" })],
  outputs: [{ name: "charged", value: "${steps.charge.output.amount}", type: { type: "number" }, required: true }],
};

interface Context {
  tools: Tools;
  llm: ScriptedLlm;
  backend: TaskBackend;
  agent: RunningComponent;
  client: Client;
}

const test = suite<Context>("an agent's tools over MCP", {} as Context);

test.before(async (context) => {
  context.tools = await startTools();
  context.llm = await startScriptedLlm();
  context.backend = createMemoryTaskBackend();
  const base = agentSpec("mcp-agent", { natural: true, workflows: [double, pay] });
  const spec: ComponentSpec = {
    ...base,
    mcp: true,
    agent: {
      ...base.agent!,
      hitl: SENSITIVE_ECHO,
      tasks: [
        {
          type: "shout",
          key: "shout",
          input: { required: [{ name: "text", type: "string" }], optional: [] },
          output: { required: [{ name: "loud", type: "string" }], optional: [] },
        },
      ],
    },
  };
  const llm = createLlmProvider(resolveLlmConfig({ option: { baseUrl: context.llm.baseUrl, apiKey: "k", model: "m", maxRetries: 0 }, env: {} })!);
  context.agent = await serveAgent(spec, context.tools.specs, {
    ...QUIET_AGENT,
    llm,
    orchestration: { baseUrls: context.tools.baseUrls, executionStore: false },
    hitl: { store: createMemoryCheckpointStore(), expiry: false },
    tasks: { shout: async (input: { text: string }) => ({ loud: input.text.toUpperCase() }) },
    taskOptions: { backend: context.backend, log: silentLogger() },
  } as never);
  context.client = new Client({ name: "agent-mcp-test", version: "1.0.0" });
  await context.client.connect(new StreamableHTTPClientTransport(new URL(`${context.agent.url}/mcp`)));
});

test.after(async ({ client, agent, tools, llm, backend }) => {
  await client.close();
  await agent.close();
  await tools.close();
  await llm.close();
  await backend.close();
});

test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;
const envelopeOf = (result: CallToolResult): { code: string; details?: { pointer: string }[] } => JSON.parse(textOf(result)).error;

test("tools/list: the workflows (typed by their inputs), ask, start_task and task_status", async ({ client }) => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ["double", "pay", "ask", "start_task", "task_status"]) assert.ok(byName.has(name), `${name} in ${[...byName.keys()].join(", ")}`);
  const doubleTool = byName.get("double")!;
  assert.is(doubleTool.description, "Doubles a number");
  assert.equal(doubleTool.inputSchema.required, ["a"]);
  assert.equal((doubleTool.inputSchema.properties as any).a, { type: "number" });
  assert.equal((doubleTool.outputSchema!.properties as any).outputs.required, ["doubled"]);
  assert.equal(byName.get("ask")!.inputSchema.required, ["request"]);
});

test("ask answers through natural mode: the plan runs, the text is the synthesised answer, the structure the route's body", async ({ client, llm, tools }) => {
  llm.reply({ text: planText([planStep("sum", "worker", "add", { a: 20, b: 22 })]) }, { text: "It is 42." });
  const result = await call(client, "ask", { request: "what is 20 + 22?" });
  assert.is(result.isError, undefined, textOf(result));
  assert.is(textOf(result), "It is 42.");
  const body = result.structuredContent as any;
  assert.equal([body.status, body.response, body.tools_used, body.mode], ["completed", "It is 42.", ["worker"], "natural"]);
  assert.equal(body.steps[0].output, { sum: 42 });
  assert.equal(
    tools.calls.map((c) => [c.capability, c.input]),
    [["add", { a: 20, b: 22 }]],
  );
  const blank = await call(client, "ask", { request: "" });
  assert.is(blank.isError, true);
  assert.equal([envelopeOf(blank).code, envelopeOf(blank).details?.[0]?.pointer], ["INVALID_INPUT", "/request"]);
});

test("a workflow tool answers its route's body with typed outputs; a bad argument is refused with the route's pointer, no step run", async ({
  client,
  tools,
}) => {
  const result = await call(client, "double", { a: 21 });
  assert.is(result.isError, undefined, textOf(result));
  const body = result.structuredContent as any;
  assert.equal([body.success, body.workflow, body.outputs], [true, "double", { doubled: 42 }]);

  const bad = await call(client, "double", { a: "twenty-one" });
  assert.is(bad.isError, true);
  assert.is(envelopeOf(bad).code, "INVALID_INPUT");
  assert.equal(
    envelopeOf(bad).details?.map((d) => d.pointer),
    ["/a"],
  );
  assert.is(tools.calls.length, 1, "only the good call ran a step");
});

test("a sensitive step answers approval pending with the checkpoint id (not an error); approving over HTTP and resuming runs it once", async ({
  client,
  agent,
  tools,
}) => {
  const result = await call(client, "pay", { a: 40 });
  assert.is(result.isError, undefined, textOf(result));
  const body = result.structuredContent as any;
  assert.is(body.status, "interrupted");
  assert.match(body.checkpoint_id, /^cp-[0-9a-f]{32}$/);
  assert.equal([body.checkpoint.type, body.checkpoint.status, body.checkpoint.current_step.step_id], ["step", "pending", "charge"]);
  const text = textOf(result);
  assert.ok(text.startsWith("Approval pending"), text);
  assert.ok(text.includes(body.checkpoint_id) && text.includes("POST /hitl/command") && text.includes(`POST /hitl/resume/${body.checkpoint_id}`), text);
  assert.is(tools.calls.filter((c) => c.capability === "echo").length, 0, "the sensitive tool was not called");

  const post = async (path: string, payload: unknown = {}) => {
    const response = await fetch(agent.url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const approved = await post("/hitl/command", { checkpoint_id: body.checkpoint_id, action: "approve" });
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  const resumed = await post(`/hitl/resume/${body.checkpoint_id}`);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.outputs, { charged: 40 });
  assert.is(tools.calls.filter((c) => c.capability === "echo").length, 1);
});

test("start_task queues a task of the agent; task_status follows it to its result; bad input and unknown ids are tool errors", async ({ client }) => {
  const started = await call(client, "start_task", { type: "shout", input: { text: "hi" } });
  assert.is(started.isError, undefined, textOf(started));
  const { task_id: taskId, status, status_url: statusUrl } = started.structuredContent as any;
  assert.is(status, "queued");
  assert.is(statusUrl, `/api/v1/tasks/${taskId}`);
  assert.ok(textOf(started).includes(taskId));

  const done = await eventually(`task ${taskId} completed`, async () => {
    const view = (await call(client, "task_status", { task_id: taskId })).structuredContent as any;
    return view.status === "completed" ? view : undefined;
  });
  assert.equal([done.type, done.result], ["shout", { loud: "HI" }]);

  const bad = await call(client, "start_task", { type: "shout", input: { text: 3 } });
  assert.is(bad.isError, true);
  assert.equal([envelopeOf(bad).code, envelopeOf(bad).details?.some((d) => d.pointer === "/input/text")], ["INVALID_INPUT", true]);
  const unknownType = await call(client, "start_task", { type: "whisper" });
  assert.is(unknownType.isError, true);
  const missing = await call(client, "task_status", { task_id: "no-such-task" });
  assert.equal([missing.isError, envelopeOf(missing).code], [true, "NOT_FOUND"]);
});

test.run();
