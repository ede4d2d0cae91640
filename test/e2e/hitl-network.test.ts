/**
 * Human approval end to end on real processes: the hitl tool and the approving agents, each its own
 * process, registered in a real Redis that also holds the checkpoints; natural mode's language model
 * is a scripted OpenAI-compatible server in this process. Every count of tool calls is asked of the
 * tool process itself.
 *
 * Agents: `hitl-agent` twice (two replicas sharing Redis; `charge` is sensitive, 60 s expiry),
 * `hitl-expiring` (1 s expiry, default reject) and `hitl-planner` (plan approval, nothing sensitive).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startRedisServer, type RedisServer } from "../support/redis.js";
import { startScriptedLlm, type ScriptedLlm } from "../support/scripted-llm.js";
import { postSse } from "../support/sse-client.js";
import { eventually } from "../support/wait.js";
import { killAll, startFixture, type Fixture } from "./helpers.js";

let redis: RedisServer;
let llm: ScriptedLlm;
let tool: Fixture;
let agent: Fixture;
let replica: Fixture;
let expiring: Fixture;
let planner: Fixture;

const TIMEOUT_MS = 10_000;
let refs = 0;
/** A charge reference no other test uses: the tool counts charges per reference. */
const newRef = (what: string): string => `${what}-${++refs}-${process.pid}`;

interface Reply {
  status: number;
  body: any;
}

async function call(method: "GET" | "POST", url: string, body?: unknown): Promise<Reply> {
  const response = await fetch(url, {
    method,
    ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) } : {}),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  return { status: response.status, body: await response.json() };
}

const post = (at: Fixture, path: string, body?: unknown): Promise<Reply> => call("POST", at.url + path, body);
const get = (at: Fixture, path: string): Promise<Reply> => call("GET", at.url + path);
const command = (at: Fixture, checkpointId: string, action: "approve" | "reject", reason?: string): Promise<Reply> =>
  post(at, "/hitl/command", { checkpoint_id: checkpointId, action, ...(reason === undefined ? {} : { reason }) });
const resume = (at: Fixture, checkpointId: string): Promise<Reply> => post(at, `/hitl/resume/${checkpointId}`);

/** What the tool process saw: its calls per capability and its charges per reference. */
async function toolCalls(): Promise<{ counts: { quote: number; charge: number }; by_ref: Record<string, number> }> {
  const { status, body } = await post(tool, "/api/capabilities/calls", {});
  assert.is(status, 200, JSON.stringify(body));
  return body;
}
const charges = async (ref: string): Promise<number> => (await toolCalls()).by_ref[ref] ?? 0;

/** A checkpoint's status as Redis holds it (the hash's `status` field): the store is Redis, not an agent's memory. */
const redisStatus = (checkpointId: string): string => redis.cli("HGET", `manifold:v1:default:{checkpoints}:cp:${checkpointId}`, "status").trim();

function assertInterrupted(reply: Reply, type: "step" | "plan"): { id: string; checkpoint: any } {
  assert.is(reply.status, 202, JSON.stringify(reply.body));
  assert.is(reply.body.status, "interrupted");
  const { checkpoint_id: id, checkpoint } = reply.body;
  assert.match(id, /^cp-[0-9a-f]{32}$/);
  assert.is(checkpoint.checkpoint_id, id);
  assert.is(checkpoint.type, type);
  assert.is(checkpoint.status, "pending");
  return { id, checkpoint };
}

test.before(async () => {
  [redis, llm] = await Promise.all([startRedisServer(), startScriptedLlm()]);
  // Empty is unset: the suite's namespace (`default`, read back below) and policies, whatever the shell says.
  const pinned = { REDIS_URL: redis.url, MANIFOLD_REDIS_NAMESPACE: "", MANIFOLD_HITL_ENABLED: "", MANIFOLD_HITL_STEP_SENSITIVE_CAPABILITIES: "" };
  const env = { ...pinned, MANIFOLD_LLM_BASE_URL: llm.baseUrl, MANIFOLD_LLM_API_KEY: "sk-e2e-hitl", OPENAI_API_KEY: "" };
  // The agents find the tool by name when they first call it, so they may start beside it.
  [tool, agent, replica, expiring, planner] = await Promise.all([
    startFixture("hitl-tool.ts", pinned),
    startFixture("hitl-agent.ts", env),
    startFixture("hitl-agent.ts", env),
    startFixture("hitl-agent.ts", { ...env, HITL_AGENT_NAME: "hitl-expiring", HITL_EXPIRY_MS: "1000", HITL_DEFAULT_ACTION: "reject" }),
    startFixture("hitl-agent.ts", { ...env, HITL_AGENT_NAME: "hitl-planner", HITL_PLAN_APPROVAL: "true", HITL_SENSITIVE: "" }),
  ]);
});

test.after(async () => {
  killAll();
  await llm?.close();
  await redis?.close();
});

test("a workflow stops before its sensitive step; approval then resume runs it exactly once", async () => {
  const ref = newRef("pay");
  const { id, checkpoint } = assertInterrupted(await post(agent, "/orchestrate/pay", { a: 40, ref }), "step");
  assert.equal(checkpoint.current_step, { step_id: "charge", index: 1 });
  assert.equal(checkpoint.resolved_parameters, { amount: 42, ref }, "resolved from the quote the tool process answered");
  assert.equal(checkpoint.decision.sensitive_matches, ["charge"]);
  assert.equal(
    checkpoint.completed_steps.map((s: { step_id: string }) => s.step_id),
    ["quote"],
  );
  assert.is(checkpoint.agent_name, "hitl-agent");
  assert.is(await charges(ref), 0, "the sensitive tool was not called");
  assert.is(redisStatus(id), "pending");

  const pending = await get(agent, "/hitl/checkpoints?status=pending&limit=100");
  assert.is(pending.status, 200);
  assert.ok(
    pending.body.checkpoints.some((c: { checkpoint_id: string }) => c.checkpoint_id === id),
    "listed as pending",
  );
  assert.is((await resume(agent, id)).status, 409, "a pending checkpoint does not resume");

  const approved = await command(agent, id, "approve", "ok");
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  assert.is(approved.body.checkpoint.status, "approved");
  assert.is(redisStatus(id), "approved");
  const quotesBefore = (await toolCalls()).counts.quote;

  const resumed = await resume(agent, id);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.outputs, { charged: 42, ref });
  assert.is(await charges(ref), 1, "charged exactly once, after approval");
  assert.is((await toolCalls()).counts.quote, quotesBefore, "the completed quote was not run again");
  assert.is(redisStatus(id), "resumed");

  const again = await resume(agent, id);
  assert.is(again.status, 409, "a resume is claimed once");
  assert.is(again.body.error.code, "CONFLICT");
  assert.is(await charges(ref), 1);
});

test("rejection ends the run: the tool is never called and resume is refused", async () => {
  const ref = newRef("reject");
  const { id } = assertInterrupted(await post(agent, "/orchestrate/pay", { a: 1, ref }), "step");
  const rejected = await command(agent, id, "reject", "no");
  assert.is(rejected.status, 200);
  assert.equal([rejected.body.checkpoint.status, rejected.body.checkpoint.resolution.reason], ["rejected", "no"]);
  assert.is((await command(agent, id, "approve")).status, 409, "decided once");
  assert.is((await resume(agent, id)).status, 409);
  assert.is((await fetch(`${agent.url}/hitl/auto-resume/${id}/stream`, { signal: AbortSignal.timeout(TIMEOUT_MS) })).status, 409);
  assert.is(await charges(ref), 0);
});

test("two sensitive steps need two approvals (a chained checkpoint), each step called once", async () => {
  const ref = newRef("twice");
  const first = assertInterrupted(await post(agent, "/orchestrate/twice", { ref }), "step");
  assert.is(first.checkpoint.current_step.step_id, "first");
  assert.is((await command(agent, first.id, "approve")).status, 200);

  const stopped = await resume(agent, first.id);
  const second = assertInterrupted(stopped, "step");
  assert.is(second.checkpoint.current_step.step_id, "second");
  assert.is.not(second.id, first.id);
  assert.is(second.checkpoint.original_request_id, first.checkpoint.original_request_id, "the chain keeps the original request id");
  assert.equal([await charges(`${ref}-first`), await charges(`${ref}-second`)], [1, 0], "the first charge ran, the second waits");

  assert.is((await command(agent, second.id, "approve")).status, 200);
  const done = await resume(agent, second.id);
  assert.is(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.outputs, { last: `${ref}-second` });
  assert.equal([await charges(`${ref}-first`), await charges(`${ref}-second`)], [1, 1], "each step called once");
});

test("custom steps stop too; the streaming resume delivers one done, after the tool ran", async () => {
  const ref = newRef("stream");
  const paused = await post(agent, "/orchestrate/custom", { steps: [{ tool: "hitl-tool", capability: "charge", params: { amount: 7, ref } }] });
  const { id } = assertInterrupted(paused, "step");
  assert.is(await charges(ref), 0);
  assert.is((await command(agent, id, "approve")).status, 200);

  const { status, events } = await postSse(`${agent.url}/hitl/auto-resume/${id}/stream`, undefined, { timeoutMs: TIMEOUT_MS });
  assert.is(status, 200);
  assert.equal(
    events.map((e) => e.event),
    ["done"],
  );
  const answer = events[0]!.data;
  assert.is(answer.success, true, JSON.stringify(answer));
  assert.equal(answer.steps[0].output, { charged: 7, ref }, "the answer holds what the tool process returned");
  assert.is(await charges(ref), 1);
  assert.is((await fetch(`${agent.url}/hitl/auto-resume/${id}/stream`, { signal: AbortSignal.timeout(TIMEOUT_MS) })).status, 409, "streamed once");
});

test("an expired checkpoint (1 s, default reject) is expired by the processor and refuses approval and resume", async () => {
  const ref = newRef("expire");
  const { id, checkpoint } = assertInterrupted(await post(expiring, "/orchestrate/pay", { a: 3, ref }), "step");
  assert.equal([checkpoint.default_action, checkpoint.agent_name], ["reject", "hitl-expiring"]);
  let current = checkpoint;
  await eventually(
    "the expiry processor to expire the checkpoint",
    async () => {
      const read = await get(expiring, `/hitl/checkpoints/${id}`);
      assert.is(read.status, 200);
      current = read.body;
      return current.status === "expired";
    },
    { intervalMs: 100, describe: () => current.status },
  );
  assert.is(current.resolution.action, "expire", "moved by an expiry pass, not a command");
  assert.ok(Date.parse(current.resolution.at) >= Date.parse(checkpoint.expires_at), "not before it expired");
  assert.is(redisStatus(id), "expired");
  const late = await command(expiring, id, "approve");
  assert.is(late.status, 409, JSON.stringify(late.body));
  assert.is(late.body.error.code, "CONFLICT");
  assert.is((await resume(expiring, id)).status, 409);
  assert.is(await charges(ref), 0);
});

test("plan approval: a natural plan stops before any step; approved and resumed, it runs once", async () => {
  const ref = newRef("plan");
  const plan = {
    steps: [{ step_id: "pay", agent_name: "hitl-tool", depends_on: [], metadata: { capability: "charge", parameters: { amount: 5, ref } } }],
  };
  llm.reply({ text: JSON.stringify(plan) }, { text: "Charged 5." });
  const seen = llm.requests.length;
  const { id, checkpoint } = assertInterrupted(await post(planner, "/orchestrate/natural", { request: "charge 5" }), "plan");
  assert.is(checkpoint.current_step, undefined);
  assert.equal(
    checkpoint.plan.steps.map((s: { step_id: string }) => s.step_id),
    ["pay"],
  );
  assert.is(llm.requests.length, seen + 1, "planned once");
  assert.is(await charges(ref), 0, "no step ran");

  assert.is((await command(planner, id, "approve")).status, 200);
  const resumed = await resume(planner, id);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.steps[0].output, { charged: 5, ref });
  assert.is(resumed.body.response, "Charged 5.", "synthesised after the run");
  assert.is(llm.requests.length, seen + 2, "the plan was not made again: one more call, the synthesis");
  assert.is(await charges(ref), 1);
});

test("a checkpoint made by one replica is approved and resumed through another (the store is shared)", async () => {
  const ref = newRef("replica");
  const { id, checkpoint } = assertInterrupted(await post(agent, "/orchestrate/pay", { a: 10, ref }), "step");
  assert.is(checkpoint.agent_url, agent.url, "the replica that paused the run");
  const read = await get(replica, `/hitl/checkpoints/${id}`);
  assert.is(read.status, 200, JSON.stringify(read.body));
  assert.is(read.body.status, "pending");

  assert.is((await command(replica, id, "approve")).status, 200);
  assert.is((await command(agent, id, "approve")).status, 409, "the first replica sees the decision");
  const resumed = await resume(replica, id);
  assert.is(resumed.status, 200, JSON.stringify(resumed.body));
  assert.equal(resumed.body.outputs, { charged: 12, ref });
  assert.is((await resume(agent, id)).status, 409, "claimed once across replicas");
  assert.is(await charges(ref), 1);
});

test.run();
