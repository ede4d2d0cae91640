/**
 * Predefined workflows: the `/orchestrate/<workflow>` endpoints (validation, outputs, 502 with step
 * details, ai_synthesis), `runWorkflow`, the programmatic `defineWorkflow` with `{{…}}` templates,
 * running a workflow by name (what tasks use), and the natural-mode seam.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createOrchestrator, defineWorkflow, runWorkflow, type Plan } from "../../runtime/orchestration/index.js";
import type { WorkflowSpec } from "../../runtime/spec/types.js";
import { agentSpec, rejection, serveAgent, startTools, workflowStep, type Tools } from "./support.js";

const research: WorkflowSpec = {
  name: "research",
  version: "1.0",
  inputs: [
    { name: "a", type: "number", required: true },
    { name: "b", type: "integer", required: false },
    { name: "label", type: "string", required: false },
  ],
  steps: [
    workflowStep("first", "add", { a: "${inputs.a}", b: 1 }),
    workflowStep("second", "echo", { sum: "${steps.first.output.sum}", b: "${inputs.b}" }, { dependsOn: ["first"] }),
    workflowStep("label", "echo", { text: "${inputs.label}: ${steps.second.output.sum}" }, { dependsOn: ["second"] }),
  ],
  outputs: [
    { name: "total", value: "${steps.second.output.sum}", type: { type: "number" }, required: true },
    { name: "label", value: "${steps.label.output.text}", type: { type: "string" }, required: false },
  ],
};

const broken: WorkflowSpec = {
  name: "broken",
  version: "1.0",
  inputs: [],
  steps: [
    workflowStep("ok", "echo", { x: 1 }),
    workflowStep("boom", "fail", {}, { dependsOn: ["ok"] }),
    workflowStep("after", "echo", {}, { dependsOn: ["boom"] }),
  ],
  outputs: [{ name: "x", value: "${steps.ok.output.x}", required: true }],
};

/** Its first step returns its (large) input; the second fails. */
const echoing: WorkflowSpec = {
  name: "echoing",
  version: "1.0",
  inputs: [{ name: "blob", type: "string", required: true }],
  steps: [workflowStep("copy", "echo", { blob: "${inputs.blob}" }), workflowStep("boom", "fail", {}, { dependsOn: ["copy"] })],
  outputs: [{ name: "blob", value: "${steps.copy.output.blob}", required: true }],
};

interface Context {
  tools: Tools;
  agent: Awaited<ReturnType<typeof serveAgent>>;
}
const test = suite<Context>("workflow endpoints", {} as Context);

test.before(async (context) => {
  context.tools = await startTools();
  context.agent = await serveAgent(agentSpec("wf-agent", { workflows: [research, broken, echoing] }), {
    components: context.tools.specs,
    baseUrls: context.tools.baseUrls,
  });
});
test.after(async ({ tools, agent }) => {
  await agent.running.close();
  await tools.close();
});
test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

test("POST /orchestrate/<workflow> answers the outputs, the plan id and every step", async ({ agent }) => {
  const { status, body } = await agent.post("/orchestrate/research", { a: 2, b: 10, label: "sum" });
  assert.is(status, 200);
  assert.is(body["success"], true);
  assert.is(body["workflow"], "research");
  assert.match(String(body["plan_id"]), /^workflow-\d{19}$/);
  assert.equal(body["outputs"], { total: 3, label: "sum: 3" });
  const steps = body["steps"] as { step_id: string; component: string; capability: string; status: string; attempts: number }[];
  assert.equal(
    steps.map((s) => [s.step_id, s.component, s.capability, s.status, s.attempts]),
    [
      ["first", "worker", "add", "completed", 1],
      ["second", "worker", "echo", "completed", 1],
      ["label", "worker", "echo", "completed", 1],
    ],
  );
  assert.type(body["duration_ms"], "number");
});

test("optional inputs may be left out; outputs that read them are left out too", async ({ agent, tools }) => {
  const { status, body } = await agent.post("/orchestrate/research", { a: 1 });
  assert.is(status, 200);
  // b absent: the tool gets no `b`; label absent: the interpolated text is absent as a whole.
  assert.equal(tools.calls[1]!.input, { sum: 2 });
  assert.equal(tools.calls[2]!.input, {});
  assert.equal(Object.keys(body["outputs"] as object), ["total"]);
});

test("bad inputs are 400 INVALID_INPUT with pointers, before anything is dispatched", async ({ agent, tools }) => {
  const cases: [unknown, string[]][] = [
    [{}, ["/a"]],
    [{ a: "2" }, ["/a"]],
    [{ a: 1, b: 1.5 }, ["/b"]],
    [{ a: 1, surprise: true }, ["/surprise"]],
    [{ a: 1, ai_synthesis: "yes" }, ["/ai_synthesis"]],
  ];
  for (const [body, pointers] of cases) {
    const response = await agent.post("/orchestrate/research", body);
    assert.is(response.status, 400, JSON.stringify(body));
    const error = response.body["error"] as { code: string; details: { pointer: string }[] };
    assert.is(error.code, "INVALID_INPUT");
    assert.equal(error.details.map((d) => d.pointer).sort(), pointers);
  }
  assert.is(tools.calls.length, 0);
});

test("ai_synthesis without a language model is 503 LLM_UNAVAILABLE naming the variables; nothing runs", async ({ agent, tools }) => {
  const { status, body } = await agent.post("/orchestrate/research", { a: 1, ai_synthesis: true });
  assert.is(status, 503);
  const error = body["error"] as { code: string; message: string };
  assert.is(error.code, "LLM_UNAVAILABLE");
  assert.match(error.message, /MANIFOLD_LLM_BASE_URL/);
  assert.is(tools.calls.length, 0);
  const ok = await agent.post("/orchestrate/research", { a: 1, ai_synthesis: false });
  assert.is(ok.status, 200);
});

test("a failed run is 502 WORKFLOW_FAILED whose details are the step entries", async ({ agent }) => {
  const { status, body } = await agent.post("/orchestrate/broken", {});
  assert.is(status, 502);
  const error = body["error"] as {
    code: string;
    message: string;
    details: { pointer: string; step_id: string; status: string; error?: { code: string }; reason?: string }[];
  };
  assert.is(error.code, "WORKFLOW_FAILED");
  assert.match(error.message, /step boom failed \(HANDLER_ERROR/);
  assert.equal(
    error.details.map((d) => [d.pointer, d.step_id, d.status]),
    [
      ["/steps/0", "ok", "completed"],
      ["/steps/1", "boom", "failed"],
      ["/steps/2", "after", "skipped"],
    ],
  );
  assert.is(error.details[1]!.error?.code, "HANDLER_ERROR");
});

test("a failed run does not echo what its steps returned: a 200 KB input gives a small 502", async ({ agent }) => {
  const blob = "x".repeat(200_000);
  const response = await fetch(`${agent.running.url}/orchestrate/echoing`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ blob }),
  });
  const text = await response.text();
  assert.is(response.status, 502);
  assert.ok(text.length < 4_000, `${text.length} bytes`);
  assert.not.ok(text.includes("x".repeat(301)));
});

test("with a synthesiser, ai_synthesis adds its answer", async ({ tools }) => {
  const seen: unknown[] = [];
  const agent = await serveAgent(agentSpec("synth-agent", { workflows: [research] }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    synthesiser: async (input) => {
      seen.push(input.outputs);
      return `total is ${String(input.outputs?.["total"])}`;
    },
  });
  try {
    const { status, body } = await agent.post("/orchestrate/research", { a: 1, b: 1, ai_synthesis: true });
    assert.is(status, 200);
    assert.is(body["response"], "total is 2");
    assert.equal(seen, [{ total: 2 }]);
    const plain = await agent.post("/orchestrate/research", { a: 1, b: 1 });
    assert.not.ok("response" in plain.body, "no synthesis unless asked");
  } finally {
    await agent.running.close();
  }
});

test("runWorkflow and the extension's runWorkflow(name) (what a task calls)", async ({ tools, agent }) => {
  const direct = await runWorkflow(research, { a: 5, b: 5 }, { components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false });
  assert.is(direct.status, "completed");
  assert.equal(direct.outputs, { total: 6 });
  const progress: unknown[] = [];
  const outputs = await agent.extension.runWorkflow("research", { a: 1, b: 1, label: "x" }, { progress: (p) => progress.push(p) });
  assert.equal(outputs, { total: 2, label: "x: 2" });
  assert.equal(progress, [
    { current_step: 1, total_steps: 3, step_name: "first", percentage: 33 },
    { current_step: 2, total_steps: 3, step_name: "second", percentage: 67 },
    { current_step: 3, total_steps: 3, step_name: "label", percentage: 100 },
  ]);
  assert.is((await rejection(agent.extension.runWorkflow("broken", {}))).code, "WORKFLOW_FAILED");
  assert.is((await rejection(agent.extension.runWorkflow("nope", {}))).code, "NOT_FOUND");
  assert.is((await rejection(agent.extension.runWorkflow("research", {}))).code, "INVALID_INPUT");
});

test("defineWorkflow: {{input}} and {{step.response.data.field}} templates, implicit dependencies", async ({ tools }) => {
  const trip = defineWorkflow({
    name: "trip",
    steps: [
      { id: "total", tool: "worker", capability: "add", parameters: { a: "{{input.a}}", b: "{{input.b}}" } },
      // No dependsOn: the template makes `total` a dependency.
      {
        id: "show",
        tool: "worker",
        capability: "echo",
        parameters: { sum: "{{total.response.data.sum}}", all: "{{input}}", text: "sum={{total.response.data.sum}}" },
      },
      { id: "after", tool: "worker", capability: "echo", dependsOn: ["show"], parameters: { done: true } },
    ],
  });
  assert.equal(
    trip.steps.map((s) => s.depends_on),
    [[], ["total"], ["show"]],
  );
  const orchestrator = createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false });
  const result = await trip.run({ a: 2, b: 3 }, { orchestrator });
  assert.is(result.status, "completed");
  assert.equal(result.outputs["show"], { sum: 5, all: { a: 2, b: 3 }, text: "sum=5" });
  assert.equal(result.outputs["after"], { done: true });
  const again = await trip.run({ a: 10, b: 1 }, { components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false });
  assert.equal(again.outputs["total"], { sum: 11 });
});

test("defineWorkflow: the spec's {{<input_name>}} reads a workflow input, whole or inside text", async ({ tools }) => {
  const greet = defineWorkflow({
    name: "greet",
    steps: [{ id: "say", tool: "worker", capability: "echo", parameters: { who: "{{name}}", n: "{{count}}", text: "Hello {{name}}, {{count}} times" } }],
  });
  const result = await greet.run({ name: "Ana", count: 2 }, { components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false });
  assert.equal(result.outputs["say"], { who: "Ana", n: 2, text: "Hello Ana, 2 times" });
});

test("defineWorkflow refuses a bad definition at once, with pointers", () => {
  const problems = (definition: Parameters<typeof defineWorkflow>[0]): string[] => {
    try {
      defineWorkflow(definition);
    } catch (error) {
      const e = error as { code: string; details: { pointer: string }[] };
      assert.is(e.code, "INVALID_WORKFLOW");
      return e.details.map((d) => d.pointer);
    }
    return [];
  };
  assert.equal(problems({ name: "x", steps: [{ id: "a", tool: "w", capability: "c", dependsOn: ["ghost"] }] }), ["/steps/0/dependsOn/0"]);
  assert.equal(
    problems({
      name: "x",
      steps: [
        { id: "a", tool: "w", capability: "c" },
        { id: "a", tool: "w", capability: "c" },
      ],
    }),
    ["/steps/1/id"],
  );
  assert.equal(problems({ name: "x", steps: [{ id: "input", tool: "w", capability: "c" }] }), ["/steps/0/id"]);
  assert.equal(problems({ name: "x", steps: [{ id: "a", tool: "w", capability: "c", parameters: { v: "{{ghost.response.data.x}}" } }] }), [
    "/steps/0/parameters",
  ]);
  assert.equal(problems({ name: "x", steps: [{ id: "a", tool: "w", capability: "c", parameters: { v: "{{a.data}}" } }] }), ["/steps/0/parameters/v"]);
  assert.equal(
    problems({
      name: "x",
      steps: [
        { id: "a", tool: "w", capability: "c", dependsOn: ["b"] },
        { id: "b", tool: "w", capability: "c", parameters: { v: "{{a.response}}" } },
      ],
    }),
    ["/steps"],
  );
  assert.equal(problems({ name: "x", steps: [] }), ["/steps"]);
});

test("natural mode is served only with a planner; its plan runs with {{…}} templates", async ({ tools, agent }) => {
  const none = await agent.post("/orchestrate/natural", { request: "add things" });
  assert.is(none.status, 404);
  let catalogSeen: readonly { name: string }[] = [];
  const planner = async (request: string, catalog: readonly { name: string }[]): Promise<Plan> => {
    catalogSeen = catalog;
    if (request === "bad")
      return {
        plan_id: "natural-1",
        original_request: request,
        mode: "natural",
        steps: [{ step_id: "a", agent_name: "worker", depends_on: ["zz"], metadata: { capability: "echo", parameters: {} }, on_error: "fail" }],
      };
    return {
      plan_id: `natural-${Date.now()}`,
      original_request: request,
      mode: "natural",
      steps: [
        { step_id: "sum", agent_name: "worker", depends_on: [], metadata: { capability: "add", parameters: { a: 20, b: 22 } }, on_error: "fail" },
        {
          step_id: "say",
          agent_name: "worker",
          depends_on: ["sum"],
          metadata: { capability: "echo", parameters: { text: "answer {{sum.response.data.sum}}" } },
          on_error: "fail",
        },
      ],
    };
  };
  const natural = await serveAgent(agentSpec("natural-agent"), { components: tools.specs, baseUrls: tools.baseUrls, planner });
  try {
    const { status, body } = await natural.post("/orchestrate/natural", { request: "what is 20 + 22?" });
    assert.is(status, 200);
    assert.is(body["mode"], "natural");
    const steps = body["steps"] as { output?: unknown }[];
    assert.equal(steps[1]!.output, { text: "answer 42" });
    assert.ok(
      catalogSeen.some((c) => c.name === "worker"),
      "the planner sees the catalog",
    );
    const bad = await natural.post("/orchestrate/natural", { request: "bad" });
    assert.is(bad.status, 400);
    assert.is((bad.body["error"] as { code: string }).code, "INVALID_WORKFLOW");
    const invalid = await natural.post("/orchestrate/natural", { text: "x" });
    assert.is(invalid.status, 400);
    assert.equal(
      (invalid.body["error"] as { details: { pointer: string }[] }).details.map((d) => d.pointer),
      ["/request", "/text"],
    );
  } finally {
    await natural.running.close();
  }
});

test.run();
