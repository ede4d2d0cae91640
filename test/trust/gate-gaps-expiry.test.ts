/**
 * Issue 32, H2 (the approval gate's last gaps): a run the expiry processor resumes (default action
 * approve) is as unapproved as any other request but for the step that expired. Its later steps are
 * gated like a human's resume: a step whose callee reaches the sensitive `charge` through its typed
 * client pauses on a new checkpoint naming that call, and `charge` does not run; once that checkpoint
 * is auto-approved in turn, the processor's resume lets exactly that call through, once.
 */
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { serveAgent } from "../../runtime/agent/index.js";
import { serveComponent } from "../../runtime/component/index.js";
import { createMemoryCheckpointStore, type Checkpoint, type HitlSpec } from "../../runtime/hitl/index.js";
import type { Plan } from "../../runtime/orchestration/index.js";
import { createCaller } from "../../runtime/outbound/index.js";
import type { ComponentSpec } from "../../runtime/spec/index.js";
import { agentSpec, startTools } from "../orchestration/support.js";
import { startRecorder } from "../outbound/support.js";
import { tool, toolSpec } from "../support/specs.js";
import { eventually } from "../support/wait.js";
import { QUIET_AGENT } from "../support/serve.js";

const EXPIRY_MS = 60_000;
const SECRET = randomBytes(32).toString("hex");
const POLICY: HitlSpec = { planApproval: false, sensitiveCapabilities: ["echo", "charge"], expiryMs: EXPIRY_MS, defaultAction: "approve" };

test("a run resumed by the expiry processor is gated: a later step whose callee charges pauses on a new checkpoint, nothing charged until that one is approved", async () => {
  const tools = await startTools();
  const hitlTool = await startRecorder();
  // trip-agent.brief charges through the one outbound caller, as a typed client does.
  const caller = createCaller({ log: { warn: () => undefined } as never });
  const tripSpec = toolSpec(tool("trip-agent", { description: "briefs", capabilities: { brief: { description: "one brief", input: { amount: "number" } } } }));
  const trip = await serveComponent(tripSpec, {
    port: 0,
    registry: false,
    handleSignals: false,
    log: () => undefined,
    handlers: {
      brief: async ({ amount }: { amount: number }) =>
        caller.call({ url: `${hitlTool.url}/api/capabilities/charge`, body: { amount, ref: "trip" }, name: "charge", target: "hitl-tool" }),
    } as never,
  });
  const store = createMemoryCheckpointStore();
  let now = Date.UTC(2026, 0, 1);
  const plan: Plan = {
    plan_id: "natural-expiry-gate",
    original_request: "echo, then brief",
    mode: "natural",
    steps: [
      { step_id: "first", agent_name: "worker", depends_on: [], metadata: { capability: "echo", parameters: { tag: "auto" } }, on_error: "fail" },
      { step_id: "second", agent_name: "trip-agent", depends_on: ["first"], metadata: { capability: "brief", parameters: { amount: 99 } }, on_error: "fail" },
    ],
  };
  const base = agentSpec("expiry-gate-agent", { natural: true });
  const spec: ComponentSpec = { ...base, agent: { ...base.agent!, hitl: POLICY } };
  const agent = await serveAgent(spec, [...tools.specs, tripSpec], {
    ...QUIET_AGENT,
    orchestration: { baseUrls: { ...tools.baseUrls, "trip-agent": trip.url }, executionStore: false, planner: async () => plan },
    hitl: { store, clock: () => now, expiry: { intervalMs: 20 } },
    auth: { jwt: { secret: SECRET } },
  } as never);
  const alice = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("alice")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(SECRET));
  const checkpoints = async (): Promise<readonly Checkpoint[]> => (await store.list({ limit: 10 })).checkpoints;
  try {
    const response = await fetch(`${agent.url}/orchestrate/natural`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${alice}` },
      body: JSON.stringify({ request: "echo, then brief", ai_synthesis: false }),
    });
    assert.is(response.status, 202);
    const { checkpoint_id: first } = (await response.json()) as { checkpoint_id: string };
    now += EXPIRY_MS + 1;
    await eventually(
      "the processor to resume the first checkpoint and the run to stop again",
      async () => (await checkpoints()).length === 2 || hitlTool.received.length > 0,
    );
    assert.is(hitlTool.received.length, 0, "charge did not run for the auto-approved run's unapproved step");
    assert.is((await store.get(first))?.status, "resumed");
    assert.is(tools.calls.filter((c) => c.capability === "echo").length, 1, "the auto-approved step ran");
    const second = (await checkpoints()).find((c) => c.checkpoint_id !== first)!;
    assert.is(second.status, "pending");
    // The processor resumed the run as its requester's: the further checkpoint is alice's, in the same request chain.
    const firstCheckpoint = (await store.get(first))!;
    assert.equal([second.requested_by, second.original_request_id], [{ subject: "alice", kind: "user" }, firstCheckpoint.original_request_id]);
    assert.is(second.current_step?.step_id, "second");
    assert.equal(
      [second.decision.indirect?.component, second.decision.indirect?.capability, second.decision.indirect?.parameters],
      ["hitl-tool", "charge", { amount: 99, ref: "trip" }],
    );
    // That checkpoint's default action approves it too: the processor's resume lets exactly the named call through, once.
    now += EXPIRY_MS + 1;
    await eventually("the second checkpoint's resume to charge", () => hitlTool.received.length > 0);
    await eventually("the second resume to finish", async () => (await store.get(second.checkpoint_id))?.status === "resumed");
    assert.is(hitlTool.received.length, 1);
    assert.equal(JSON.parse(hitlTool.received[0]!.body), { amount: 99, ref: "trip" });
    assert.is((await checkpoints()).length, 2, "no further pause");
  } finally {
    await agent.close();
    await trip.close();
    await hitlTool.close();
    await tools.close();
  }
});

test.run();
