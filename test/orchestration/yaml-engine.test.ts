/**
 * The YAML workflow engine: workflow text checked at run time against the live catalog (tools
 * registered in a real in-memory registry, found through discovery, endpoints from their wire
 * capabilities), with gen's codes and positions; and YAML files served by an agent.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveComponent } from "../../runtime/component/index.js";
import { createMemoryRegistry, type Registry } from "../../runtime/discovery/index.js";
import { createOrchestrationExtension, createWorkflowEngine } from "../../runtime/orchestration/index.js";
import { agentSpec, memoryLog, rejection, startTools, type Tools } from "./support.js";
import { within } from "../support/wait.js";

const GOOD = `kind: workflow
name: sums
version: "1.0"
inputs:
  a: { type: number, required: true }
  label: { type: string }
steps:
  - name: first
    tool: worker
    action: add
    inputs: { a: "\${inputs.a}", b: 1 }
  - name: slow
    tool: worker
    action: sleep
    inputs: { ms: 5, tag: "\${inputs.label}" }
  - name: second
    tool: worker
    action: add
    inputs: { a: "\${steps.first.output.sum}", b: 10 }
outputs:
  total: "\${steps.second.output.sum}"
  text: "total \${steps.second.output.sum} after \${steps.slow.output.slept} ms"
`;

interface Context {
  registry: Registry;
  tools: Tools;
  dir: string;
}
const test = suite<Context>("yaml engine", {} as Context);

test.before(async (context) => {
  context.registry = createMemoryRegistry();
  context.tools = await startTools({ registry: context.registry });
  context.dir = mkdtempSync(join(tmpdir(), "manifold-yaml-"));
});
test.after(async ({ tools, dir }) => {
  await tools.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a workflow loaded at run time is checked against the live catalog and runs", async ({ registry }) => {
  const engine = createWorkflowEngine({ registry, executionStore: false, log: memoryLog().log });
  const workflow = await engine.load(GOOD, "sums.yaml");
  assert.is(workflow.spec.name, "sums");
  assert.equal(
    workflow.spec.steps.map((s) => [s.name, s.dependsOn]),
    [
      ["first", []],
      ["slow", []],
      ["second", ["first"]],
    ],
    "the implicit dependency was added",
  );
  assert.ok(
    workflow.warnings.some((w) => w.code === "MF1411"),
    "…with a warning",
  );
  const result = await workflow.run({ a: 1, label: "x" });
  assert.is(result.status, "completed");
  assert.match(result.plan_id, /^yaml-\d{19}$/);
  assert.equal(result.outputs, { total: 12, text: "total 12 after 5 ms" });
  await engine.close();
});

test("a bad workflow is INVALID_WORKFLOW whose details are {code, line, column, message}", async ({ registry }) => {
  const engine = createWorkflowEngine({ registry, executionStore: false });
  const bad = GOOD.replace("action: sleep", "action: snooze").replace("${steps.first.output.sum}", "${steps.first.output.total}");
  const error = await rejection(engine.load(bad, "bad.yaml"));
  assert.is(error.code, "INVALID_WORKFLOW");
  assert.match(error.message, /bad\.yaml/);
  const details = error.details as unknown as { code: string; line: number; column: number; message: string }[];
  const codes = details.map((d) => [d.code, d.line]);
  assert.ok(
    codes.some(([code, line]) => code === "MF1404" && line === 14),
    JSON.stringify(details),
  );
  assert.ok(
    codes.some(([code, line]) => code === "MF1406" && line === 19),
    JSON.stringify(details),
  );
  for (const detail of details) {
    assert.type(detail.column, "number");
    assert.type(detail.message, "string");
  }
  const unknownTool = await rejection(engine.load(GOOD.replaceAll("tool: worker", "tool: nowhere"), "x.yaml"));
  assert.is((unknownTool.details as unknown as { code: string }[])[0]?.code, "MF1403");
  const notYaml = await rejection(engine.load("kind: workflow\nname: [unclosed", "broken.yaml"));
  assert.is(notYaml.code, "INVALID_WORKFLOW");
  const check = await engine.check(GOOD.replaceAll("tool: worker", "tool: nowhere"));
  assert.equal([...check.missing], ["nowhere"]);
});

test("an agent serves YAML workflow files; one naming a tool not registered yet is checked again on its first call", async ({ tools, dir }) => {
  const file = join(dir, "late.yaml");
  writeFileSync(file, GOOD.replace("name: sums", "name: late-sums").replaceAll("tool: worker", "tool: worker-late"));
  const registry = createMemoryRegistry();
  const { lines, log } = memoryLog();
  const extension = createOrchestrationExtension(agentSpec("yaml-agent"), { registry, workflowFiles: [file], executionStore: false, log });
  const agent = await serveComponent(agentSpec("yaml-agent"), {
    port: 0,
    handlers: {},
    registry: false,
    handleSignals: false,
    log: () => undefined,
    extensions: [extension],
  });
  const post = async (body: unknown) => {
    const response = await fetch(`${agent.url}/orchestrate/late-sums`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  let late: Tools | undefined;
  try {
    assert.ok(
      lines.some((l) => l.startsWith("warn ") && l.includes("not registered yet")),
      lines.join("\n"),
    );
    const early = await post({ a: 1 });
    assert.is(early.status, 503);
    assert.is((early.body["error"] as { code: string }).code, "UNAVAILABLE");
    late = await startTools({ names: ["worker-late"], registry });
    const ok = await within("the late call", post({ a: 1 }));
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body["outputs"], { total: 12, text: "total 12 after 5 ms" });
    assert.match(String(ok.body["plan_id"]), /^yaml-/);
    const bad = await post({ a: "one" });
    assert.is(bad.status, 400);
    assert.equal(await extension.runWorkflow("late-sums", { a: 2 }), { total: 13, text: "total 13 after 5 ms" });
  } finally {
    await agent.close();
    await late?.close();
  }
  void tools;
});

test("a YAML file with a real error stops the agent from starting", async ({ registry, dir }) => {
  const file = join(dir, "wrong.yaml");
  writeFileSync(file, GOOD.replace("action: add", "action: subtract"));
  const extension = createOrchestrationExtension(agentSpec("yaml-agent-2"), { registry, workflowFiles: [file], executionStore: false, log: memoryLog().log });
  const error = await rejection(
    serveComponent(agentSpec("yaml-agent-2"), { port: 0, handlers: {}, registry: false, handleSignals: false, log: () => undefined, extensions: [extension] }),
  );
  assert.is(error.code, "INVALID_WORKFLOW");
  assert.match(error.message, /MF1404/);
  const unnamed = join(dir, "unnamed.yaml");
  writeFileSync(unnamed, "kind: workflow\n");
  assert.throws(() => createOrchestrationExtension(agentSpec("a"), { workflowFiles: [unnamed] }), /no valid `name`/);
  const reserved = join(dir, "custom.yaml");
  writeFileSync(reserved, "kind: workflow\nname: custom\n");
  assert.throws(() => createOrchestrationExtension(agentSpec("a"), { workflowFiles: [reserved] }), /reserved/);
});

test.run();
