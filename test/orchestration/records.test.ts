/**
 * Execution records written by real runs: off unless enabled, then one per request with the plan,
 * per-step results, hook outcomes and the final status.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { withRequestContext } from "../../runtime/context/index.js";
import { ManifoldError } from "../../runtime/errors/index.js";
import {
  createExecutionStore,
  createMemoryExecutionStore,
  createOrchestrator,
  type ExecutionStore,
  type OrchestratorOptions,
} from "../../runtime/orchestration/index.js";
import type { WorkflowSpec } from "../../runtime/spec/types.js";
import { memoryLog, rejection, startTools, workflowStep, type Tools } from "./support.js";

const workflow: WorkflowSpec = {
  name: "recorded",
  version: "1",
  inputs: [{ name: "ms", type: "number", required: true }],
  steps: [workflowStep("nap", "sleep", { ms: "${inputs.ms}" }), workflowStep("boom", "fail", {}, { dependsOn: ["nap"], onError: "continue" })],
  outputs: [],
};

const test = suite<{ tools: Tools }>("execution records", { tools: undefined as unknown as Tools });
test.before(async (context) => {
  context.tools = await startTools();
});
test.after(({ tools }) => tools.close());

const orchestrator = (tools: Tools, options: OrchestratorOptions) =>
  createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, registry: false, log: memoryLog().log, ...options });

test("off unless enabled: MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED=true turns it on", async ({ tools }) => {
  // With the flag, the default store is the memory store's, shared by the process: read it the same way.
  const shared = createExecutionStore({ env: {} });
  const before = (await shared.list({ limit: 1000 })).length;
  await orchestrator(tools, { env: {} }).runWorkflow(workflow, { ms: 1 });
  await orchestrator(tools, { env: { MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "false" } }).runWorkflow(workflow, { ms: 1 });
  assert.is((await shared.list({ limit: 1000 })).length, before, "nothing recorded while off");
  const result = await orchestrator(tools, { env: { MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "true" } }).runWorkflow(workflow, { ms: 1 });
  const record = await shared.get(result.plan_id);
  assert.is(record?.workflow, "recorded");
  assert.throws(() => orchestrator(tools, { env: { MANIFOLD_EXECUTION_DEBUG_STORE_ENABLED: "yes" } }), /must be true or false/);
});

test("a run's record: plan, per-step results, hook outcomes, status, times", async ({ tools }) => {
  const store = createMemoryExecutionStore();
  const o = orchestrator(tools, {
    executionStore: store,
    hooks: [
      {
        name: "audit",
        phase: "before_planning",
        mode: "fail_open",
        run: () => {
          throw new ManifoldError("UNAVAILABLE", "audit down");
        },
      },
      { name: "check", phase: "after_execution", run: () => undefined },
    ],
  });
  const result = await o.runWorkflow(workflow, { ms: 5 });
  const record = (await store.get(result.plan_id))!;
  assert.is(record.status, "success");
  assert.is(record.mode, "workflow");
  assert.is(record.workflow, "recorded");
  assert.is(record.plan?.plan_id, result.plan_id);
  assert.equal(
    record.plan?.steps.map((s) => s.step_id),
    ["nap", "boom"],
  );
  assert.equal(record.plan?.steps[0]?.metadata.parameters, { ms: "${inputs.ms}" }, "the plan as run, expressions unresolved");
  assert.equal(
    record.steps.map((s) => [s.step_id, s.status]),
    [
      ["nap", "completed"],
      ["boom", "failed"],
    ],
  );
  assert.equal(record.steps[0]!.output, { slept: 5 });
  assert.equal(
    record.hooks.map(({ duration_ms: _duration, ...outcome }) => outcome),
    [
      {
        name: "audit",
        phase: "before_planning",
        outcome: "failed_open",
        error: { code: "UNAVAILABLE", message: "audit down" },
        order: 1,
        decision: { policy: "fail_open", action: "continue", reason: "UNAVAILABLE" },
      },
      { name: "check", phase: "after_execution", outcome: "ok", order: 2, decision: { policy: "fail_open", action: "continue" } },
    ],
    "each hook's status, order and decision (policy, action, reason)",
  );
  assert.ok(record.hooks.every((h) => typeof h.duration_ms === "number" && h.duration_ms >= 0));
  assert.equal(
    record.steps.map((s) => s.parameters),
    [{ ms: 5 }, {}],
    "the parameters each step was sent, resolved",
  );
  assert.is(record.revision, 1);
  assert.equal(
    record.lifecycle?.map((l) => l.event),
    ["started", "completed"],
  );
  assert.ok(Date.parse(record.finished_at) >= Date.parse(record.started_at));
  assert.equal(await store.list({ limit: 1 }), [record]);
});

test("failed, interrupted, stopped by a hook, and custom runs are recorded with their status", async ({ tools }) => {
  const store: ExecutionStore = createMemoryExecutionStore();
  const failing: WorkflowSpec = { ...workflow, name: "failing", steps: [workflowStep("boom", "fail", {})] };
  const failed = await orchestrator(tools, { executionStore: store }).runWorkflow(failing, { ms: 1 });
  assert.is((await store.get(failed.plan_id))?.status, "failed");

  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const interrupted = await orchestrator(tools, { executionStore: store }).runWorkflow(workflow, { ms: 2_000 }, { signal: controller.signal });
  assert.is(interrupted.status, "interrupted");
  assert.is((await store.get(interrupted.plan_id))?.status, "interrupted");

  const stopped = orchestrator(tools, {
    executionStore: store,
    hooks: [
      {
        name: "gate",
        phase: "after_planning",
        mode: "fail_closed",
        run: () => {
          throw new ManifoldError("UNAUTHORIZED", "closed");
        },
      },
    ],
  });
  const error = await rejection(stopped.runWorkflow(workflow, { ms: 1 }));
  assert.is(error.code, "HOOK_FAILED");
  const [latest] = await store.list({ limit: 1 });
  assert.is(latest?.status, "failed");
  assert.equal(latest?.steps, [], "nothing was dispatched");
  assert.is(latest?.error?.code, "HOOK_FAILED");
  assert.equal(
    latest?.hooks.map((h) => h.outcome),
    ["failed_closed"],
  );

  const custom = await orchestrator(tools, { executionStore: store }).runCustom({ steps: [{ tool: "worker", capability: "echo", params: { a: 1 } }] });
  const customRecord = await store.get(custom.plan_id);
  assert.is(customRecord?.mode, "custom");
  assert.is(customRecord?.status, "success");
  // The spec's routing plan: a custom plan's mode is ModeWorkflow; its id still says custom.
  assert.is(customRecord?.plan?.mode, "workflow");
  assert.match(String(customRecord?.plan?.plan_id), /^custom-\d+$/);
});

test("a run in a conversation records its conversation_id (the dashboard groups by it); one outside has none", async ({ tools }) => {
  const store = createMemoryExecutionStore();
  const run = orchestrator(tools, { executionStore: store });
  const custom = { steps: [{ tool: "worker", capability: "echo", params: { a: 1 } }] };
  const inside = await withRequestContext({ conversationId: "conv-42" }, () => run.runCustom(custom));
  const outside = await run.runCustom(custom);
  assert.is((await store.get(inside.plan_id))?.conversation_id, "conv-42");
  assert.is((await store.get(outside.plan_id))?.conversation_id, undefined);
});

test("a step an interceptor sent round again (a semantic retry) shows both rounds with the parameters each sent", async ({ tools }) => {
  const store = createMemoryExecutionStore();
  const corrected = { a: 1, b: 2 };
  const o = orchestrator(tools, { executionStore: store });
  o.use({
    name: "test.correct",
    // The tool refused the first parameters (400): send the corrected ones, once.
    afterStep: ({ error, round }) => (error?.code === "INVALID_INPUT" && round === 0 ? { action: "retry", parameters: corrected } : undefined),
  });
  const before = tools.calls.length;
  const result = await withRequestContext({ requestId: "req-rounds" }, () =>
    o.runCustom({ steps: [{ tool: "worker", capability: "add", params: { a: 1, b: "two" } }] }),
  );
  // The tool refused the first call at its input check (400), before its handler: the handler ran once.
  assert.is(tools.calls.length - before, 1);
  const record = (await store.get(result.plan_id))!;
  assert.is(record.status, "success");
  assert.is(record.request_id, "req-rounds");
  assert.is(record.original_request_id, "req-rounds");
  const [step] = record.steps;
  assert.equal(step!.output, { sum: 3 });
  assert.equal(step!.parameters, corrected, "what was finally sent");
  assert.equal(
    step!.rounds?.map(({ error, ...round }) => ({ ...round, code: error?.code })),
    [
      { round: 0, parameters: { a: 1, b: "two" }, attempts: 1, status: "failed", retried_by: "test.correct", code: "INVALID_INPUT" },
      { round: 1, parameters: corrected, attempts: 1, status: "completed", code: undefined },
    ],
  );
});

test("a paused run records its checkpoint; its resumption saves the same record again: revision 2, the decision, the lifecycle of both", async ({ tools }) => {
  const store = createMemoryExecutionStore();
  const o = orchestrator(tools, { executionStore: store });
  let pause = true;
  o.use({
    name: "test.gate",
    afterExecution: () => (pause ? { action: "pause", answer: { status: "interrupted", checkpoint_id: "cp-records" } } : undefined),
  });
  const body = { steps: [{ tool: "worker", capability: "echo", params: { a: 1 } }] };
  const paused = await o.runCustom(body);
  const first = (await store.get(paused.plan_id))!;
  assert.equal(first.hitl, { checkpoint_id: "cp-records", state: "waiting" });
  assert.equal(first.decisions, [{ interceptor: "test.gate", stage: "after_execution", action: "pause" }]);
  assert.equal([first.revision, first.lifecycle?.map((l) => l.event)], [1, ["started", "paused"]]);
  pause = false;
  await o.runCustom(body, {
    resume: { plan: first.plan!, completed: first.steps, checkpoint: { checkpoint_id: "cp-records", decision: "approved" } },
  });
  const second = (await store.get(paused.plan_id))!;
  assert.is(second.revision, 2);
  assert.is(second.status, "success");
  assert.equal(second.hitl, { checkpoint_id: "cp-records", state: "resumed", decision: "approved" });
  assert.equal(
    second.lifecycle?.map((l) => l.event),
    ["started", "paused", "resumed", "completed"],
  );
  assert.is(second.started_at, first.started_at, "the record keeps the first run's start");
  assert.equal(second.steps[0]!.parameters, { a: 1 }, "a step the resumption did not run again keeps what it was sent");
  assert.equal(second.decisions, first.decisions, "the first run's decisions stay");
});

test("a step a resumed run sends again keeps its first run's round in the record; hook order runs on across the pause", async ({ tools }) => {
  const store = createMemoryExecutionStore();
  const hooks = [
    { name: "audit-in", phase: "before_planning" as const, run: () => undefined },
    { name: "audit-out", phase: "after_execution" as const, run: () => undefined },
  ];
  const o = orchestrator(tools, { executionStore: store, hooks });
  let pause = true;
  o.use({
    name: "test.fixer",
    // Stands in for HITL's error checkpoint: the failed step waits for a human, who corrects it on resume.
    afterStep: ({ error }) => (pause && error !== undefined ? { action: "pause", reason: "needs a human" } : undefined),
    afterExecution: ({ result }) =>
      result.interrupt !== undefined ? { action: "pause", answer: { status: "interrupted", checkpoint_id: "cp-fix" } } : undefined,
    beforeStep: ({ round, parameters }) => (pause || round > 0 ? undefined : { action: "replace", parameters: { ...(parameters as object), failures: 0 } }),
  });
  const body = { steps: [{ tool: "worker", capability: "flaky", params: { key: `fix-${Date.now()}`, failures: 5 } }] };
  const paused = await o.runCustom(body);
  const first = (await store.get(paused.plan_id))!;
  assert.is(first.steps[0]!.status, "failed");
  pause = false;
  await o.runCustom(body, { resume: { plan: first.plan!, completed: [], checkpoint: { checkpoint_id: "cp-fix", decision: "corrected" } } });
  const second = (await store.get(paused.plan_id))!;
  assert.is(second.steps[0]!.status, "completed");
  assert.equal(
    second.steps[0]!.rounds?.map((r) => [r.status, (r.parameters as { failures: number }).failures]),
    [
      ["failed", 5],
      ["completed", 0],
    ],
    "what the first run sent stays beside what the resumed run sent",
  );
  assert.equal(
    second.hooks.map((h) => [h.name, h.order]),
    [
      ["audit-in", 1],
      ["audit-out", 2],
    ],
    "a hook's order is its place in the request's list, across the pause",
  );
});

test("a store that fails to save never fails the request", async ({ tools }) => {
  const { lines, log } = memoryLog();
  const broken: ExecutionStore = {
    kind: "memory",
    save: async () => {
      throw new ManifoldError("UNAVAILABLE", "store down");
    },
    get: async () => undefined,
    list: async () => [],
    close: async () => undefined,
  };
  const result = await createOrchestrator({ components: tools.specs, baseUrls: tools.baseUrls, registry: false, executionStore: broken, log }).runWorkflow(
    workflow,
    { ms: 1 },
  );
  assert.is(result.status, "completed");
  assert.ok(lines.some((l) => l.startsWith("warn ") && l.includes("could not be saved")));
});

test.run();
