/**
 * Human approval over HTTP on a served agent (the real feature list, real tools on loopback): a
 * workflow stops before its sensitive step, approval then resume runs it exactly once, rejection ends
 * the run, two sensitive steps need two approvals, a streaming resume delivers `done` after the run,
 * an expired checkpoint with default reject refuses resume, plan approval stops before any step.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { type CheckpointStore, createMemoryCheckpointStore } from "../../runtime/hitl/index.js";
import type { Plan } from "../../runtime/orchestration/index.js";
import type { HitlSpec } from "../../runtime/hitl/index.js";
import type { ComponentSpec, WorkflowSpec } from "../../runtime/spec/index.js";
import { postSse } from "../support/sse-client.js";
import { eventually, sleep } from "../support/wait.js";
import { agentSpec, startTools, workflowStep, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";
import { SENSITIVE_ECHO } from "./support.js";

const pay: WorkflowSpec = {
  name: "pay",
  version: "1.0",
  inputs: [{ name: "a", type: "number", required: true }],
  steps: [
    workflowStep("sum", "add", { a: "${inputs.a}", b: 2 }),
    workflowStep("charge", "echo", { amount: "${steps.sum.output.sum}", tag: "charge" }, { dependsOn: ["sum"] }),
  ],
  outputs: [{ name: "charged", value: "${steps.charge.output.amount}", type: { type: "number" }, required: true }],
};

const twice: WorkflowSpec = {
  name: "twice",
  version: "1.0",
  inputs: [],
  steps: [workflowStep("first", "echo", { tag: "first" }), workflowStep("second", "echo", { tag: "second" }, { dependsOn: ["first"] })],
  outputs: [{ name: "last", value: "${steps.second.output.tag}", type: { type: "string" }, required: true }],
};

/** Its step sends the tool a string where it takes a number: the tool answers 400 INVALID_INPUT. */
const mistyped: WorkflowSpec = {
  name: "mistyped",
  version: "1.0",
  inputs: [{ name: "a", type: "string", required: true }],
  steps: [workflowStep("sum", "add", { a: "${inputs.a}", b: 1 })],
  outputs: [{ name: "sum", value: "${steps.sum.output.sum}", type: { type: "number" }, required: true }],
};

interface Agent {
  running: RunningComponent;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; requestId: string | null }>;
}

interface AgentMore {
  clock?: () => number;
  natural?: boolean;
  capability?: string;
  name?: string;
  store?: CheckpointStore;
  expiryIntervalMs?: number;
}

async function startAgent(tools: Tools, hitl: HitlSpec, more: AgentMore = {}): Promise<Agent> {
  const base = agentSpec(more.name ?? `approver-${Math.random().toString(16).slice(2, 8)}`, {
    custom: true,
    workflows: [pay, twice, mistyped],
    natural: more.natural === true,
  });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl, ...(more.natural === true ? { chat: true as const } : {}) } };
  // A fixed plan for natural mode: what a language model would have planned.
  const plan: Plan = {
    plan_id: `natural-${Date.now()}`,
    original_request: "charge",
    mode: "natural",
    steps: [
      {
        step_id: "only",
        agent_name: "worker",
        depends_on: [],
        metadata: { capability: more.capability ?? "add", parameters: { a: 1, b: 1 } },
        on_error: "continue",
      },
    ],
  };
  const running = await serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    orchestration: {
      baseUrls: tools.baseUrls,
      executionStore: false,
      // A stand-in for the language model's synthesis, so a test sees whether one was asked for.
      synthesiser: async () => "synthesised",
      ...(more.natural ? { planner: async () => plan } : {}),
    },
    hitl: {
      store: more.store ?? createMemoryCheckpointStore(),
      expiry: more.expiryIntervalMs === undefined ? false : { intervalMs: more.expiryIntervalMs },
      ...(more.clock ? { clock: more.clock } : {}),
    },
  } as never);
  return {
    running,
    post: async (path, body = {}, headers = {}) => {
      const response = await fetch(running.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json(), requestId: response.headers.get("x-manifold-request-id") };
    },
  };
}

const test = suite<{ tools: Tools; agent: Agent }>("hitl over HTTP", {} as never);
test.before(async (context) => {
  context.tools = await startTools();
  context.agent = await startAgent(context.tools, SENSITIVE_ECHO);
});
test.after(async ({ tools, agent }) => {
  await agent.running.close();
  await tools.close();
});
test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

const callsOf = (tools: Tools, capability: string) => tools.calls.filter((c) => c.capability === capability).length;

test("a workflow stops before its sensitive step; approval then resume runs it exactly once", async ({ tools, agent }) => {
  const paused = await agent.post("/orchestrate/pay", { a: 40 }, { "X-Manifold-Request-ID": "req-original-1" });
  assert.is(paused.status, 202);
  assert.is(paused.body.checkpoint.original_request_id, "req-original-1");
  assert.is(paused.body.status, "interrupted");
  const { checkpoint_id: id, checkpoint } = paused.body;
  assert.match(id, /^cp-[0-9a-f]{32}$/);
  assert.equal([checkpoint.type, checkpoint.status, checkpoint.request_mode], ["step", "pending", "non_streaming"]);
  assert.equal(checkpoint.current_step, { step_id: "charge", index: 1 });
  assert.equal(checkpoint.resolved_parameters, { amount: 42, tag: "charge" }, "resolved, not templated");
  assert.equal(checkpoint.decision.sensitive_matches, ["echo"]);
  assert.equal([callsOf(tools, "add"), callsOf(tools, "echo")], [1, 0], "the sensitive tool was not called");

  assert.is((await agent.post(`/hitl/resume/${id}`)).status, 409, "a pending checkpoint does not resume");
  const approved = await agent.post("/hitl/command", { checkpoint_id: id, action: "approve", reason: "ok" });
  assert.is(approved.status, 200);
  assert.is(approved.body.checkpoint.status, "approved");
  assert.is((await agent.post("/hitl/command", { checkpoint_id: id, action: "reject" })).status, 409, "decided once");

  const resumed = await agent.post(`/hitl/resume/${id}`);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.outputs, { charged: 42 });
  assert.ok(resumed.requestId !== null && resumed.requestId !== "req-original-1", "the resumed run has a request id of its own");
  assert.equal([callsOf(tools, "add"), callsOf(tools, "echo")], [1, 1], "sum ran once in all, charge once after approval");
  assert.is((await agent.post(`/hitl/resume/${id}`)).status, 409, "a resume is claimed once");
});

test("rejection ends the run: the tool is never called and resume is refused", async ({ tools, agent }) => {
  const { body } = await agent.post("/orchestrate/pay", { a: 1 });
  const rejected = await agent.post("/hitl/command", { checkpoint_id: body.checkpoint_id, action: "reject", reason: "no" });
  assert.equal([rejected.status, rejected.body.checkpoint.status, rejected.body.checkpoint.resolution.reason], [200, "rejected", "no"]);
  assert.is((await agent.post(`/hitl/resume/${body.checkpoint_id}`)).status, 409);
  assert.is(callsOf(tools, "echo"), 0);
});

test("two sensitive steps need two approvals (a chained checkpoint), each step called once", async ({ tools, agent }) => {
  const first = await agent.post("/orchestrate/twice", {});
  assert.is(first.body.checkpoint.current_step.step_id, "first");
  await agent.post("/hitl/command", { checkpoint_id: first.body.checkpoint_id, action: "approve" });
  const second = await agent.post(`/hitl/resume/${first.body.checkpoint_id}`);
  assert.is(second.status, 202, "the resumed run stops again");
  assert.is(second.body.checkpoint.current_step.step_id, "second");
  assert.not.equal(second.body.checkpoint_id, first.body.checkpoint_id);
  await agent.post("/hitl/command", { checkpoint_id: second.body.checkpoint_id, action: "approve" });
  const done = await agent.post(`/hitl/resume/${second.body.checkpoint_id}`);
  assert.is(done.status, 200);
  assert.equal(done.body.outputs, { last: "second" });
  assert.equal(
    tools.calls.map((c) => c.input["tag"]),
    ["first", "second"],
  );
});

test("custom steps stop too; a streaming resume sends done only after the run finished", async ({ tools, agent }) => {
  const paused = await agent.post("/orchestrate/custom", { steps: [{ tool: "worker", capability: "echo", params: { tag: "custom" } }] });
  assert.is(paused.status, 202);
  const id = paused.body.checkpoint_id;
  await agent.post("/hitl/command", { checkpoint_id: id, action: "approve" });
  const { status, events } = await postSse(`${agent.running.url}/hitl/auto-resume/${id}/stream`, undefined);
  assert.is(status, 200);
  assert.equal(
    events.map((e) => e.event),
    ["done"],
  );
  const done = events[0]!.data as any;
  assert.is(done.steps[0].success, true);
  assert.is(callsOf(tools, "echo"), 1);
  const again = await fetch(`${agent.running.url}/hitl/auto-resume/${id}/stream`);
  assert.is(again.status, 409, "refused before the stream opens, with the envelope's status");
  assert.is(((await again.json()) as any).error.code, "CONFLICT");
  assert.is((await fetch(`${agent.running.url}/hitl/auto-resume/cp-${"0".repeat(32)}/stream`)).status, 404);
});

test("a step the tool refuses (400) pauses at an error checkpoint; approved with corrected parameters, it runs with them", async ({ tools, agent }) => {
  const paused = await agent.post("/orchestrate/mistyped", { a: "five" });
  assert.is(paused.status, 202, JSON.stringify(paused.body));
  const { checkpoint } = paused.body;
  assert.equal([checkpoint.type, checkpoint.current_step.step_id], ["error", "sum"]);
  assert.equal(checkpoint.resolved_parameters, { a: "five", b: 1 });
  assert.match(checkpoint.decision.reason, /worker\.add refused its input/);
  const wrong = await agent.post("/hitl/command", { checkpoint_id: checkpoint.checkpoint_id, action: "reject", parameters: { a: 5 } });
  assert.equal([wrong.status, wrong.body.error.details[0].pointer], [400, "/parameters"], "parameters go with approve only");
  await agent.post("/hitl/command", { checkpoint_id: checkpoint.checkpoint_id, action: "approve", parameters: { a: 5, b: 1 } });
  const resumed = await agent.post(`/hitl/resume/${checkpoint.checkpoint_id}`);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.outputs, { sum: 6 });
  assert.equal(
    tools.calls.filter((c) => c.capability === "add").map((c) => c.input),
    [{ a: 5, b: 1 }],
    "the refused call never reached the handler; the corrected one did",
  );
});

test("a resume answers as the paused request asked: ai_synthesis true on a workflow, false on natural mode", async ({ tools, agent }) => {
  const paused = await agent.post("/orchestrate/pay", { a: 1, ai_synthesis: true });
  await agent.post("/hitl/command", { checkpoint_id: paused.body.checkpoint_id, action: "approve" });
  const resumed = await agent.post(`/hitl/resume/${paused.body.checkpoint_id}`);
  assert.is(resumed.body.response, "synthesised");
  const natural = await startAgent(tools, SENSITIVE_ECHO, { natural: true, capability: "echo" });
  try {
    const stopped = await natural.post("/orchestrate/natural", { request: "echo", ai_synthesis: false });
    assert.is(stopped.status, 202);
    await natural.post("/hitl/command", { checkpoint_id: stopped.body.checkpoint_id, action: "approve" });
    const done = await natural.post(`/hitl/resume/${stopped.body.checkpoint_id}`);
    assert.is(done.status, 200);
    assert.is(done.body.response, undefined, "no synthesis was asked for");
  } finally {
    await natural.running.close();
  }
});

test("agents sharing a store act on their own checkpoints only; an auto-approved one is resumed by its own agent", async ({ tools }) => {
  const store = createMemoryCheckpointStore();
  const approving = { ...SENSITIVE_ECHO, expiryMs: 300, defaultAction: "approve" as const };
  // x runs no expiry processor; y's processor claims x's due checkpoint but must not resume it.
  const x = await startAgent(tools, approving, { name: "agent-x", store });
  const y = await startAgent(tools, approving, { name: "agent-y", store, expiryIntervalMs: 50 });
  try {
    const paused = await x.post("/orchestrate/pay", { a: 1 });
    const id = paused.body.checkpoint_id;
    const elsewhere = await y.post(`/hitl/resume/${id}`);
    assert.equal([elsewhere.status, elsewhere.body.error.code], [409, "CONFLICT"]);
    assert.match(elsewhere.body.error.message, /belongs to agent-x/);
    assert.is((await y.post("/hitl/command", { checkpoint_id: id, action: "approve" })).status, 409);
    const listed = (await (await fetch(`${y.running.url}/hitl/checkpoints`)).json()) as { checkpoints: unknown[] };
    assert.is(listed.checkpoints.length, 0, "y lists only its own");
    await eventually("y's processor to expire the checkpoint", async () => (await store.get(id))?.status !== "pending");
    assert.is((await store.get(id))?.status, "expired_approved", "y's processor applied the default action");
    await sleep(200);
    assert.is((await store.get(id))?.status, "expired_approved", "and left the run to agent-x");
    assert.is(callsOf(tools, "echo"), 0);
    await x.running.close();
    // agent-x with its processor: it follows up the checkpoint y expired.
    const again = await startAgent(tools, approving, { name: "agent-x", store, expiryIntervalMs: 50 });
    try {
      await eventually("agent-x to resume the checkpoint", async () => (await store.get(id))?.status === "resumed");
      await eventually("the resumed run's call", () => callsOf(tools, "echo") > 0);
      assert.is(callsOf(tools, "echo"), 1, "the run went on, once");
    } finally {
      await again.running.close();
    }
  } finally {
    await x.running.close().catch(() => undefined);
    await y.running.close();
  }
});

test("bad commands: 400 with pointers, unknown ids 404", async ({ agent }) => {
  const bad = await agent.post("/hitl/command", { checkpoint_id: `cp-${"a".repeat(32)}`, action: "maybe", extra: 1 });
  assert.is(bad.status, 400);
  assert.equal(
    bad.body.error.details.map((d: { pointer: string }) => d.pointer),
    ["/action", "/extra"],
  );
  assert.is((await agent.post("/hitl/command", { checkpoint_id: `cp-${"a".repeat(32)}`, action: "approve" })).status, 404);
  assert.is((await agent.post("/hitl/command", { checkpoint_id: "__proto__", action: "approve" })).status, 404);
});

test("an expired checkpoint with default reject refuses approval and resume", async ({ tools }) => {
  let now = Date.now();
  const agent = await startAgent(tools, { ...SENSITIVE_ECHO, expiryMs: 1_000 }, { clock: () => now });
  try {
    const { body } = await agent.post("/orchestrate/pay", { a: 3 });
    now += 2_000;
    assert.is((await agent.post("/hitl/command", { checkpoint_id: body.checkpoint_id, action: "approve" })).status, 409, "too late");
    assert.is((await agent.post(`/hitl/resume/${body.checkpoint_id}`)).status, 409);
    assert.is(callsOf(tools, "echo"), 0);
  } finally {
    await agent.running.close();
  }
});

test("plan approval: a natural plan stops before any step; approved, it runs", async ({ tools }) => {
  const agent = await startAgent(tools, { planApproval: true, sensitiveCapabilities: [], expiryMs: 60_000, defaultAction: "reject" }, { natural: true });
  try {
    const paused = await agent.post("/orchestrate/natural", { request: "add one and one", ai_synthesis: false });
    assert.is(paused.status, 202, JSON.stringify(paused.body));
    assert.is(paused.body.checkpoint.type, "plan");
    assert.is(paused.body.checkpoint.current_step, undefined);
    assert.is(tools.calls.length, 0, "no step ran");
    await agent.post("/hitl/command", { checkpoint_id: paused.body.checkpoint_id, action: "approve" });
    const resumed = await agent.post(`/hitl/resume/${paused.body.checkpoint_id}`);
    assert.is(resumed.status, 200, JSON.stringify(resumed.body));
    assert.is(resumed.body.steps[0].output.sum, 2);
    assert.is(callsOf(tools, "add"), 1);
  } finally {
    await agent.running.close();
  }
});

test("chat: a paused turn sends a checkpoint event with conversation_id and session_id; the auto-resume stream sends done", async ({ tools }) => {
  const agent = await startAgent(tools, SENSITIVE_ECHO, { natural: true, capability: "echo" });
  try {
    const turn = await postSse(`${agent.running.url}/chat/stream`, { message: "echo one and one" });
    const names = turn.events.map((e) => e.event);
    assert.equal([names[0], names.at(-1)], ["session", "checkpoint"], names.join(","));
    assert.not.ok(names.includes("done"), "no answer yet");
    const sessionId = turn.events[0]!.data.session_id;
    const checkpoint = turn.events.at(-1)!.data;
    assert.equal([checkpoint.conversation_id, checkpoint.session_id, checkpoint.checkpoint.request_mode], [sessionId, sessionId, "streaming"]);
    assert.equal(checkpoint.checkpoint.user_context, { conversation_id: sessionId, session_id: sessionId });
    assert.is(callsOf(tools, "echo"), 0);
    await agent.post("/hitl/command", { checkpoint_id: checkpoint.checkpoint_id, action: "approve" });
    const resumed = await postSse(`${agent.running.url}/hitl/auto-resume/${checkpoint.checkpoint_id}/stream`, undefined);
    assert.equal(
      resumed.events.map((e) => e.event),
      ["done"],
    );
    assert.is(callsOf(tools, "echo"), 1);
    // The resumed answer joins the conversation the checkpoint came from (its session, not a new one).
    const history = (await (await fetch(`${agent.running.url}/chat/session/${sessionId}/history`)).json()) as any;
    assert.equal(
      history.messages.map((m: { role: string }) => m.role),
      ["user", "assistant"],
    );
    assert.is(history.messages[1].metadata.resumed, true);
    assert.is(history.messages[1].content, "synthesised", "the chat turn asked for a synthesis, and so did its resume");
  } finally {
    await agent.running.close();
  }
});

test.run();
