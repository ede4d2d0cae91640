/**
 * Pipeline hooks on real runs: every phase in order with what it may see, fail_open vs fail_closed,
 * unexpected throws, plan replacement, and that they apply to every front end.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ManifoldError } from "../../runtime/errors/index.js";
import { createOrchestrator, type HookContext, type HookOutcome, type HookPhase, type PipelineHook, type Plan } from "../../runtime/orchestration/index.js";
import type { WorkflowSpec } from "../../runtime/spec/types.js";
import { agentSpec, memoryLog, rejection, serveAgent, startTools, workflowStep, type Tools } from "./support.js";

const workflow: WorkflowSpec = {
  name: "hooked",
  version: "1",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [workflowStep("sum", "add", { a: "${inputs.a}", b: 1 })],
  outputs: [{ name: "sum", value: "${steps.sum.output.sum}", required: true }],
};

const test = suite<{ tools: Tools }>("hooks", { tools: undefined as unknown as Tools });
test.before(async (context) => {
  context.tools = await startTools();
});
test.after(({ tools }) => tools.close());
test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

function orchestrator(tools: Tools, hooks: PipelineHook[], extra: Parameters<typeof createOrchestrator>[0] = {}) {
  const { lines, log } = memoryLog();
  return {
    lines,
    orchestrator: createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: false, hooks, log, ...extra }),
  };
}

const recorder = (seen: HookContext[], phase: HookPhase, name: string = phase): PipelineHook => ({ name, phase, run: (context) => void seen.push(context) });

test("every phase runs in order and sees what exists by then", async ({ tools }) => {
  const seen: HookContext[] = [];
  const phases: HookPhase[] = ["after_synthesis", "after_execution", "after_planning", "before_planning"];
  const { orchestrator: o } = orchestrator(
    tools,
    phases.map((p) => recorder(seen, p)),
    { synthesiser: async () => "prose" },
  );
  const result = await o.runWorkflow(workflow, { a: 1 }, { synthesise: true });
  assert.equal(
    seen.map((c) => c.phase),
    ["before_planning", "after_planning", "after_execution", "after_synthesis"],
  );
  assert.equal(
    seen.map((c) => [c.mode, c.workflow]),
    Array(4).fill(["workflow", "hooked"]),
  );
  assert.equal(seen[0]!.request, { a: 1 });
  assert.is(seen[0]!.plan, undefined);
  assert.is(seen[1]!.plan?.plan_id, result.plan_id);
  assert.is(seen[1]!.result, undefined);
  assert.is(seen[2]!.result?.status, "completed");
  assert.equal(seen[2]!.outputs, { sum: 2 });
  assert.is(seen[3]!.synthesis, "prose");
  assert.equal(
    result.hooks.map((h) => [h.phase, h.outcome]),
    [
      ["before_planning", "ok"],
      ["after_planning", "ok"],
      ["after_execution", "ok"],
      ["after_synthesis", "ok"],
    ],
  );
  seen.length = 0;
  await o.runWorkflow(workflow, { a: 1 });
  assert.equal(
    seen.map((c) => c.phase),
    ["before_planning", "after_planning", "after_execution"],
    "no synthesis, no after_synthesis",
  );
});

test("fail_open: the failure is logged and the request goes on", async ({ tools }) => {
  const { orchestrator: o, lines } = orchestrator(tools, [
    {
      name: "audit",
      phase: "before_planning",
      mode: "fail_open",
      run: () => {
        throw new ManifoldError("UNAVAILABLE", "audit log is down");
      },
    },
  ]);
  const result = await o.runWorkflow(workflow, { a: 1 });
  assert.is(result.status, "completed");
  assert.equal(result.outputs, { sum: 2 });
  const [{ duration_ms, ...outcome }] = result.hooks as [HookOutcome];
  assert.equal(outcome, {
    name: "audit",
    phase: "before_planning",
    outcome: "failed_open",
    error: { code: "UNAVAILABLE", message: "audit log is down" },
    order: 1,
    decision: { policy: "fail_open", action: "continue", reason: "UNAVAILABLE" },
  });
  assert.type(duration_ms, "number");
  assert.ok(
    lines.some((l) => l.startsWith("warn ") && l.includes("audit") && l.includes("audit log is down")),
    lines.join("\n"),
  );
});

test("fail_closed before execution: HOOK_FAILED and nothing is dispatched", async ({ tools }) => {
  for (const phase of ["before_planning", "after_planning"] as const) {
    const { orchestrator: o } = orchestrator(tools, [
      {
        name: "policy",
        phase,
        mode: "fail_closed",
        run: () => {
          throw new ManifoldError("UNAUTHORIZED", "not allowed today");
        },
      },
    ]);
    const error = await rejection(o.runWorkflow(workflow, { a: 1 }));
    assert.is(error.code, "HOOK_FAILED");
    assert.match(error.message, /policy/);
    assert.match(error.message, /not allowed today/);
    assert.equal(error.details?.[0]?.["hook"], "policy");
    assert.is(tools.calls.length, 0, `${phase}: nothing dispatched`);
  }
});

test("fail_closed after execution stops the request after the steps ran", async ({ tools }) => {
  const { orchestrator: o } = orchestrator(tools, [
    {
      name: "verify",
      phase: "after_execution",
      mode: "fail_closed",
      run: () => {
        throw new ManifoldError("CONFLICT", "result rejected");
      },
    },
  ]);
  const error = await rejection(o.runWorkflow(workflow, { a: 1 }));
  assert.is(error.code, "HOOK_FAILED");
  assert.is(tools.calls.length, 1);
});

test("a hook throwing something unexpected stops the request whatever its mode, without leaking the message", async ({ tools }) => {
  const { orchestrator: o, lines } = orchestrator(tools, [
    {
      name: "buggy",
      phase: "before_planning",
      mode: "fail_open",
      run: () => {
        throw new TypeError("secret-internal-detail");
      },
    },
  ]);
  const error = await rejection(o.runWorkflow(workflow, { a: 1 }));
  assert.is(error.code, "HOOK_FAILED");
  assert.not.match(error.message, /secret-internal-detail/);
  assert.not.match(JSON.stringify(error.toEnvelope()), /secret-internal-detail/);
  assert.ok(lines.some((l) => l.startsWith("error ") && l.includes("buggy")));
  assert.is(tools.calls.length, 0);
});

test("after_planning may replace the plan; a bad replacement is refused", async ({ tools }) => {
  const replace: PipelineHook = {
    name: "rewrite",
    phase: "after_planning",
    run: ({ plan }): Plan => ({
      ...plan!,
      steps: plan!.steps.map((s) => ({ ...s, metadata: { ...s.metadata, parameters: { ...s.metadata.parameters, b: 100 } } })),
    }),
  };
  const { orchestrator: o } = orchestrator(tools, [replace]);
  const result = await o.runWorkflow(workflow, { a: 1 });
  assert.equal(result.outputs, { sum: 101 });
  assert.equal(tools.calls[0]!.input, { a: 1, b: 100 });

  tools.calls.length = 0;
  const badPlan: PipelineHook = {
    name: "bad",
    phase: "after_planning",
    mode: "fail_closed",
    run: ({ plan }) => ({ ...plan!, steps: [{ ...plan!.steps[0]!, depends_on: ["ghost"] }] }),
  };
  const refused = await rejection(orchestrator(tools, [badPlan]).orchestrator.runWorkflow(workflow, { a: 1 }));
  assert.is(refused.code, "HOOK_FAILED");
  assert.match(refused.message, /ghost/);
  assert.is(tools.calls.length, 0);

  const lenient = orchestrator(tools, [{ ...badPlan, mode: "fail_open" }]);
  const kept = await lenient.orchestrator.runWorkflow(workflow, { a: 1 });
  assert.equal(kept.outputs, { sum: 2 }, "fail_open: the original plan runs");
  assert.is(kept.hooks[0]!.outcome, "failed_open");
});

test("hooks apply to custom mode too, and answer HOOK_FAILED over HTTP as a 500 envelope", async ({ tools }) => {
  const seen: HookContext[] = [];
  const agent = await serveAgent(agentSpec("hooked-agent", { custom: true, workflows: [workflow] }), {
    components: tools.specs,
    baseUrls: tools.baseUrls,
    hooks: [
      recorder(seen, "before_planning", "record"),
      {
        name: "deny_fail",
        phase: "after_planning",
        mode: "fail_closed",
        run: ({ plan }) => {
          if (plan!.steps.some((s) => s.metadata.capability === "fail")) throw new ManifoldError("UNAUTHORIZED", "fail is not allowed");
        },
      },
    ],
  });
  try {
    const ok = await agent.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "echo" }] });
    assert.is(ok.status, 200);
    assert.is(seen[0]!.mode, "custom");
    const denied = await agent.post("/orchestrate/custom", {
      steps: [
        { tool: "worker", capability: "echo" },
        { tool: "worker", capability: "fail" },
      ],
    });
    assert.is(denied.status, 500);
    const error = denied.body["error"] as { code: string; message: string; category: string };
    assert.is(error.code, "HOOK_FAILED");
    assert.match(error.message, /fail is not allowed/);
    assert.is(tools.calls.length, 1, "only the first request's step ran");
  } finally {
    await agent.running.close();
  }
});

test("hooks are checked when configured", ({ tools }) => {
  assert.throws(() => orchestrator(tools, [{ name: "x", phase: "before_plannin" as HookPhase, run: () => undefined }]), /phase must be one of/);
  assert.throws(() => orchestrator(tools, [{ name: "has space", phase: "before_planning", run: () => undefined }]), /name/);
  assert.throws(
    () => orchestrator(tools, [{ name: "x", phase: "before_planning", mode: "strict" as "fail_open", run: () => undefined }]),
    /fail_open or fail_closed/,
  );
  const twice: PipelineHook = { name: "x", phase: "before_planning", run: () => undefined };
  assert.throws(() => orchestrator(tools, [twice, twice]), /two before_planning hooks/);
});

test.run();
