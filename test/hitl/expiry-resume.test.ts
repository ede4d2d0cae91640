/**
 * Who resumes an auto-approved checkpoint (issue 32 audit): the expiry processor applies the default
 * action and leaves a `streaming` checkpoint to its connected client (the spec: for streaming
 * checkpoints only the connected client can resolve them), whose auto-resume stream then runs it; a
 * `non_streaming` one, whose request already answered 202, the processor resumes itself.
 */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import type { RunningComponent } from "../../runtime/component/index.js";
import { type CheckpointStore, createMemoryCheckpointStore, type HitlSpec } from "../../runtime/hitl/index.js";
import type { Plan } from "../../runtime/orchestration/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { postSse } from "../support/sse-client.js";
import { eventually, sleep } from "../support/wait.js";
import { agentSpec, startTools, type Tools } from "../orchestration/support.js";
import { QUIET_AGENT } from "../support/serve.js";

const AUTO_APPROVE: HitlSpec = { planApproval: false, sensitiveCapabilities: ["echo"], expiryMs: 300, defaultAction: "approve" };

async function startAgent(tools: Tools, store: CheckpointStore): Promise<RunningComponent> {
  const base = agentSpec(`expiring-${Math.random().toString(16).slice(2, 8)}`, { custom: true, natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: AUTO_APPROVE, chat: true as const } };
  const plan: Plan = {
    plan_id: `natural-${Date.now()}`,
    original_request: "echo",
    mode: "natural",
    steps: [{ step_id: "only", agent_name: "worker", depends_on: [], metadata: { capability: "echo", parameters: { tag: "auto" } }, on_error: "continue" }],
  };
  return serveAgent(spec, tools.specs, {
    ...QUIET_AGENT,
    orchestration: { baseUrls: tools.baseUrls, executionStore: false, synthesiser: async () => "synthesised", planner: async () => plan },
    hitl: { store, expiry: { intervalMs: 50 } },
  } as never);
}

const test = suite<{ tools: Tools }>("hitl: who resumes an auto-approved checkpoint", {} as never);
test.before(async (context) => {
  context.tools = await startTools();
});
test.after(async ({ tools }) => {
  await tools.close();
});
test.before.each(({ tools }) => {
  tools.calls.length = 0;
});

const echoes = (tools: Tools): number => tools.calls.filter((c) => c.capability === "echo").length;

test("a streaming checkpoint expires to expired_approved and waits for its client; the client's auto-resume stream runs it, once", async ({ tools }) => {
  const store = createMemoryCheckpointStore();
  const agent = await startAgent(tools, store);
  try {
    const turn = await postSse(`${agent.url}/chat/stream`, { message: "echo it" });
    const checkpoint = turn.events.at(-1)!.data;
    assert.is(turn.events.at(-1)!.event, "checkpoint");
    assert.is(checkpoint.checkpoint.request_mode, "streaming");
    const id: string = checkpoint.checkpoint_id;
    await eventually("the processor to apply the default action", async () => (await store.get(id))?.status !== "pending");
    assert.is((await store.get(id))?.status, "expired_approved");
    await sleep(300);
    assert.is((await store.get(id))?.status, "expired_approved", "left to the connected client");
    assert.is(echoes(tools), 0);
    const resumed = await postSse(`${agent.url}/hitl/auto-resume/${id}/stream`, undefined);
    assert.is(resumed.status, 200);
    assert.equal(
      resumed.events.map((e) => e.event),
      ["done"],
    );
    assert.is(echoes(tools), 1);
    assert.is((await store.get(id))?.status, "resumed");
  } finally {
    await agent.close();
  }
});

test("a non-streaming checkpoint that expires with default approve is resumed by the processor, once", async ({ tools }) => {
  const store = createMemoryCheckpointStore();
  const agent = await startAgent(tools, store);
  try {
    const response = await fetch(`${agent.url}/orchestrate/natural`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ request: "echo it", ai_synthesis: false }),
    });
    assert.is(response.status, 202);
    const { checkpoint_id: id } = (await response.json()) as { checkpoint_id: string };
    await eventually("the processor to resume it", async () => (await store.get(id))?.status === "resumed");
    await eventually("the resumed run's call", () => echoes(tools) > 0);
    assert.is(echoes(tools), 1);
  } finally {
    await agent.close();
  }
});

test.run();
