/**
 * The MCP tools an agent's extensions add (issue 34), as the extensions build them: which exist (a
 * capability's name wins over a framework tool, with a warning; none in worker mode), their input
 * schemas (the same as the routes'), and a workflow tool's call checked by the route's own validator.
 * The tools over a real `/mcp` with the SDK's client are in agent-mcp.test.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isManifoldError } from "../../runtime/errors/index.js";
import { createOrchestrationExtension } from "../../runtime/orchestration/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { workflowRequestSchema } from "../../runtime/spec/index.js";
import { createTasksExtension } from "../../runtime/tasks/index.js";
import { agentSpec, capability, memoryLog } from "../orchestration/support.js";
import { double } from "./agent-support.js";
import { agentSpec as taskAgentSpec, silentLogger } from "../tasks/support.js";

const namesOf = (tools: readonly { name: string }[] | undefined): string[] => (tools ?? []).map((t) => t.name);

test("an agent with natural mode and a served workflow: the workflow's tool typed as its route, and ask", () => {
  const extension = createOrchestrationExtension(agentSpec("helper", { natural: true, workflows: [double] }), { executionStore: false, registry: false });
  assert.equal(namesOf(extension.mcpTools), ["double", "ask"]);
  const [workflow, ask] = extension.mcpTools!;
  assert.equal(workflow!.inputSchema, workflowRequestSchema(double, "draft-07"), "the route's request schema: inputs and ai_synthesis");
  assert.is(workflow!.description, "Doubles a number");
  assert.equal((workflow!.outputSchema as any).properties.outputs.properties, { doubled: { type: "number" } });
  assert.equal((ask!.inputSchema as any).properties.request.maxLength, 8000, "the natural route's limit");
  assert.equal((ask!.inputSchema as any).required, ["request"]);
});

test("no natural mode: no ask; no workflow served: no workflow tool", () => {
  const spec = agentSpec("plain", { workflows: [double], endpoints: [] });
  assert.equal(namesOf(createOrchestrationExtension(spec, { executionStore: false, registry: false }).mcpTools), []);
});

test("a workflow tool's bad arguments are refused by the route's validator, with its pointer, before any step", async () => {
  const extension = createOrchestrationExtension(agentSpec("helper", { workflows: [double] }), { executionStore: false, registry: false });
  const tool = extension.mcpTools!.find((t) => t.name === "double")!;
  const controller = new AbortController();
  const error = await tool.call({ a: "two" }, { signal: controller.signal } as never).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isManifoldError(error), String(error));
  assert.is(error.code, "INVALID_INPUT");
  assert.equal(
    error.details?.map((d) => d.pointer),
    ["/a"],
  );
});

test("a capability's name wins: the framework's tool of that name is left out, with a warning", () => {
  const { lines, log } = memoryLog();
  const base = agentSpec("clash", { natural: true, workflows: [double] });
  const spec: ComponentSpec = { ...base, capabilities: [capability("ask"), capability("double"), { ...capability("start_task"), internal: true }] };
  assert.equal(namesOf(createOrchestrationExtension(spec, { executionStore: false, registry: false, log }).mcpTools), []);
  assert.equal(
    lines.filter((l) => l.startsWith("warn MCP: clash serves")),
    [
      "warn MCP: clash serves workflow double as no tool: a capability of clash already has the name double",
      "warn MCP: clash serves natural mode as no tool: a capability or workflow of clash already has the name ask",
    ],
  );

  const tasks: ComponentSpec = { ...taskAgentSpec, capabilities: [capability("task_status"), { ...capability("start_task"), internal: true }] };
  const logged: string[] = [];
  const extension = createTasksExtension(tasks, { mode: "api", log: silentLogger(logged) });
  assert.equal(namesOf(extension.mcpTools), ["start_task"], "an internal capability is no tool, so no clash");
  assert.ok(
    logged.some((l) => l.includes("serves task_status (its task types) as no tool")),
    logged.join("\n"),
  );
});

test("a workflow named ask keeps the name over natural mode's tool", () => {
  const ask: WorkflowSpec = { ...double, name: "ask", description: "the author's ask" };
  const extension = createOrchestrationExtension(agentSpec("asker", { natural: true, workflows: [ask] }), {
    executionStore: false,
    registry: false,
    log: memoryLog().log,
  });
  assert.equal(
    extension.mcpTools!.map((t) => [t.name, t.description]),
    [["ask", "the author's ask"]],
  );
});

test("task types: start_task typed by each type's input schema, task_status; none in worker mode (no task API there)", () => {
  const api = createTasksExtension(taskAgentSpec, { mode: "api", log: silentLogger() });
  assert.equal(namesOf(api.mcpTools), ["start_task", "task_status"]);
  const start = api.mcpTools![0]!.inputSchema as any;
  assert.equal(start.properties.type.enum, ["echo", "work", "slow_job", "summarise"]);
  const echo = start.allOf.find((c: any) => c.if.properties.type.const === "echo");
  assert.equal(echo.then.properties.input.required, ["text"]);
  const worker = createTasksExtension(taskAgentSpec, {
    mode: "worker",
    log: silentLogger(),
    handlers: { echo: async () => ({}), work: async () => ({}), slowJob: async () => ({}) },
    runWorkflow: async () => ({}),
  });
  assert.equal(namesOf(worker.mcpTools), []);
});

test.run();
